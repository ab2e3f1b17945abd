import type { Session } from './session';

/**
 * How long sessions live (issue 33), in milliseconds; 0 turns a rule off. `lifetimeMs` is
 * SESSION_EXPIRY, `rememberMs` REMEMBER_ME_EXPIRY ("Keep me signed in"), `maxLifetimeMs`
 * SESSION_MAX_LIFETIME (the bound renewal never passes), `idleTimeoutMs` SESSION_IDLE_TIMEOUT.
 */
export interface SessionLifetimes {
  readonly lifetimeMs: number;
  readonly rememberMs: number;
  readonly maxLifetimeMs: number;
  readonly idleTimeoutMs: number;
}

/** The longest a note of "last use" may lag when no idle timeout asks for better: the account page shows it to the minute. */
export const LAST_USE_RESOLUTION_MS = 60_000;

/**
 * How fresh "last use" is kept, per replica and in the shared store: a quarter of the idle
 * timeout, at most a minute, at least a second. A session used within `idle - 2 × granularity`
 * is never taken for idle by another replica (one granularity for the note, one for its write).
 */
export function lastUseGranularityMs(idleTimeoutMs: number): number {
  if (idleTimeoutMs <= 0) return LAST_USE_RESOLUTION_MS;
  return Math.max(1000, Math.min(Math.floor(idleTimeoutMs / 4), LAST_USE_RESOLUTION_MS));
}

/** True when a session last used at `lastUsedAt` has gone unused for the idle timeout (never with the timeout off). */
export function isIdle(lastUsedAt: number, idleTimeoutMs: number, now: number): boolean {
  return idleTimeoutMs > 0 && now - lastUsedAt >= idleTimeoutMs;
}

/** The lifetime a session is issued, and renewed, for: REMEMBER_ME_EXPIRY when it asked to be remembered and that is on. */
export function periodOf(session: Pick<Session, 'remember'>, lifetimes: Pick<SessionLifetimes, 'lifetimeMs' | 'rememberMs'>): number {
  return session.remember === true && lifetimes.rememberMs > 0 ? lifetimes.rememberMs : lifetimes.lifetimeMs;
}

/** Until when a session issued at `issuedAt` may be renewed, or undefined when renewal is off. */
export function renewableUntilOf(issuedAt: number, maxLifetimeMs: number): number | undefined {
  return maxLifetimeMs > 0 ? issuedAt + maxLifetimeMs : undefined;
}

/**
 * The new expiry of a session in use at `now`, or null when it is not renewed now: only a full
 * session made renewable, once less than half of its period is left, and only to a later time,
 * `now + period` capped at its `renewableUntil`. Renewing at half-life (not at every request)
 * keeps the cookie from being set again on every answer.
 */
export function renewedExpiry(
  session: Pick<Session, 'expiresAt' | 'renewableUntil' | 'remember' | 'totpPending'>,
  lifetimes: Pick<SessionLifetimes, 'lifetimeMs' | 'rememberMs'>,
  now: number,
): number | null {
  if (session.renewableUntil === undefined || session.totpPending) return null;
  const period = periodOf(session, lifetimes);
  if (session.expiresAt - now > period / 2) return null;
  const next = Math.min(now + period, session.renewableUntil);
  return next > session.expiresAt ? next : null;
}

/**
 * The latest a session (or any renewed copy of its cookie) can be valid: what its revocation and
 * its index entry must outlive, or a stolen copy renewed apart would come back once they lapse.
 */
export function latestExpiry(session: Pick<Session, 'expiresAt' | 'renewableUntil'>): number {
  return Math.max(session.expiresAt, session.renewableUntil ?? 0);
}
