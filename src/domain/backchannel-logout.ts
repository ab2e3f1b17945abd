/**
 * OpenID Connect Back-Channel Logout 1.0: what a logout token says, and how long the gateway keeps
 * trying to deliver one. Pure: times are parameters (milliseconds since the epoch unless named
 * seconds).
 */

/** The one event a logout token carries (section 2.4), as a member of its `events` claim. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** How long a logout token is valid once signed: enough for a slow network, short enough to be useless later. */
export const LOGOUT_TOKEN_TTL_SECONDS = 120;

/** One logout owed to one relying party: who to tell, about which session, since when, how often it was tried. */
export interface LogoutDelivery {
  /** Unique; the base of each attempt's `jti`. */
  readonly id: string;
  readonly clientId: string;
  /** The `sub` the relying party knows the person by. */
  readonly subject: string;
  /** The session id (`sid`) the relying party's ID tokens carried; null when none is known. */
  readonly sid: string | null;
  /** When the session ended: the retry bound runs from here. */
  readonly createdAt: number;
  /** Attempts made so far. */
  readonly attempts: number;
  /** When the next attempt is due. */
  readonly dueAt: number;
}

export interface LogoutTokenInput {
  readonly issuer: string;
  readonly clientId: string;
  readonly subject: string;
  readonly sid: string | null;
  /** Whether the client registered `backchannel_logout_session_required` (then `sid` is always sent). */
  readonly sessionRequired: boolean;
  readonly jti: string;
  readonly now: number;
}

/** The claims of a logout token (section 2.4): never a `nonce`; `sid` and `sub` whenever known. */
export interface LogoutTokenClaims {
  readonly iss: string;
  readonly aud: string;
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
  readonly events: { readonly [BACKCHANNEL_LOGOUT_EVENT]: Record<string, never> };
  readonly sub?: string;
  readonly sid?: string;
}

/**
 * The claims for one delivery attempt. `sub` is always sent (every relying party knows it);
 * `sid` when the session had one. A client that requires `sid` and none is known gets none
 * (null): the logout is then for the subject alone, which such a client may refuse.
 */
export function logoutTokenClaims(input: LogoutTokenInput): LogoutTokenClaims | null {
  if (input.sessionRequired && input.sid === null) return null;
  const iat = Math.floor(input.now / 1000);
  return {
    iss: input.issuer,
    aud: input.clientId,
    iat,
    exp: iat + LOGOUT_TOKEN_TTL_SECONDS,
    jti: input.jti,
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    sub: input.subject,
    ...(input.sid === null ? {} : { sid: input.sid }),
  };
}

/** How deliveries are retried: exponential backoff from `firstRetryMs`, capped at `maxRetryMs`, for `boundMs` after the session ended. */
export interface LogoutRetryPolicy {
  readonly firstRetryMs: number;
  readonly maxRetryMs: number;
  readonly boundMs: number;
}

export const DEFAULT_LOGOUT_RETRY: LogoutRetryPolicy = { firstRetryMs: 1_000, maxRetryMs: 5 * 60_000, boundMs: 60 * 60_000 };

/**
 * After a failed attempt (the `attempts`-th, counting from 1): when to try again, or null when the
 * bound is reached (the delivery is given up). The last retry is never scheduled past the bound.
 */
export function nextLogoutAttempt(delivery: Pick<LogoutDelivery, 'createdAt'>, attempts: number, now: number, policy: LogoutRetryPolicy): number | null {
  const deadline = delivery.createdAt + policy.boundMs;
  if (now >= deadline) return null;
  const delay = Math.min(policy.maxRetryMs, policy.firstRetryMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30));
  return Math.min(now + delay, deadline);
}

/** The `jti` of one attempt: a relying party that saw an earlier attempt's token still takes this one. */
export const attemptJti = (delivery: Pick<LogoutDelivery, 'id' | 'attempts'>): string => `${delivery.id}.${delivery.attempts + 1}`;

/** The longest retry bound the configuration accepts. */
export const MAX_LOGOUT_RETRY_BOUND_MS = 7 * 24 * 60 * 60_000;

/** How long a queued delivery's row is kept at most (past any bound: the worker gives it up and audits it first). */
export const LOGOUT_DELIVERY_KEPT_MS = MAX_LOGOUT_RETRY_BOUND_MS + 24 * 60 * 60_000;
