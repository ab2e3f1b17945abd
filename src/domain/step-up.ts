import { SESSION_METHODS, type SessionMethod } from './login-methods';

/**
 * A step-up under way (issue 33): a session met a per-path requirement it does not meet, and its
 * browser is sent to the login page with this, sealed, to prove what is missing. Bound to the
 * session and its account; the page asks only for `methods` (any one of them), then goes back.
 */
export interface StepUpRequest {
  readonly sessionId: string;
  readonly username: string;
  /** The methods that meet the requirement, any one of them. */
  readonly methods: readonly SessionMethod[];
  /** How recent the proof must be, in seconds (null: any time); a proof made now always is. */
  readonly maxAge: number | null;
  /** Where to go back to: the original URL, already checked to be inside a protected domain; null: the account page. */
  readonly returnTo: string | null;
  readonly expiresAt: number;
}

/** How long a browser has to complete a step-up once sent to it. */
export const STEP_UP_LIFETIME_MS = 10 * 60 * 1000;

/** The methods of a sealed list, or null when any is not a session method (a reference from a newer or foreign version). */
export function stepUpMethodsOf(raw: unknown): SessionMethod[] | null {
  if (!Array.isArray(raw) || raw.length === 0) return null;
  const out: SessionMethod[] = [];
  for (const m of raw) {
    if (typeof m !== 'string' || !(SESSION_METHODS as readonly string[]).includes(m)) return null;
    out.push(m as SessionMethod);
  }
  return out;
}
