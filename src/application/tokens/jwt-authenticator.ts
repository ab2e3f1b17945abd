import type { Identity } from '../../domain/session';
import type { AuditLog } from '../ports/audit-log';
import { isPending, type Awaitable } from '../ports/awaitable';
import type { Clock } from '../ports/clock';
import { MAX_JWT_LENGTH, type JwtVerification, type JwtVerifier } from './jwt-verifier';

/** What checking a workload's JWT found, in the request authenticator's terms. */
export type JwtAuthentication =
  | { readonly kind: 'jwt'; readonly identity: Identity }
  | { readonly kind: 'invalid_token' }
  /** The issuer's keys cannot be read and none held checks the token: refused for now, never passed. */
  | { readonly kind: 'unavailable' };

export interface JwtAuthenticatorParts {
  readonly verifier: JwtVerifier;
  readonly clock: Clock;
  readonly audit: AuditLog;
}

/** Verified tokens kept at most; the whole memo is dropped when full (tokens are short-lived, and a miss only costs a verification). */
export const VERIFIED_MAX = 10_000;
/**
 * The longest a verification is kept, even for a token that lives longer: a key the issuer
 * withdrew from its set stops vouching for its tokens within this time.
 */
export const VERIFIED_TTL_MS = 5 * 60_000;

interface Verified {
  readonly answer: JwtAuthentication;
  /** Until when the answer holds (milliseconds since the epoch). */
  readonly until: number;
}

const INVALID: JwtAuthentication = Object.freeze({ kind: 'invalid_token' });
const UNAVAILABLE: JwtAuthentication = Object.freeze({ kind: 'unavailable' });

/**
 * Finds out which workload a JWT from a configured issuer speaks for (issue 32): the identity
 * `<issuer id>:<username claim>` with the token's groups, under the same access rules as anyone
 * (`users.allow`, `oauth.groups`). A verified token is remembered by its text until its `exp`
 * (at most VERIFIED_TTL_MS, at most VERIFIED_MAX tokens), so the next request with it is answered
 * at once, without a promise. Refusals are audited with their reason, never the token; the first
 * verification of a token is a login (`login_succeeded`, method `jwt`), like HTTP Basic's.
 */
export class JwtAuthenticator {
  private verified = new Map<string, Verified>();
  private readonly verifier: JwtVerifier;
  private readonly clock: Clock;
  private readonly audit: AuditLog;

  constructor(parts: JwtAuthenticatorParts) {
    ({ verifier: this.verifier, clock: this.clock, audit: this.audit } = parts);
  }

  authenticate(jwt: string, ip: string, requestId?: string): Awaitable<JwtAuthentication> {
    const hit = this.verified.get(jwt);
    if (hit !== undefined) {
      if (hit.until > this.clock.now()) return hit.answer;
      this.verified.delete(jwt);
    }
    if (jwt.length > MAX_JWT_LENGTH) return this.refuse('oversized', undefined, ip, requestId);
    let verification: Awaitable<JwtVerification>;
    try {
      verification = this.verifier.verify(jwt);
    } catch {
      return this.refuse('malformed', undefined, ip, requestId);
    }
    if (isPending(verification))
      return verification.then(
        (v) => this.settle(jwt, v, ip, requestId),
        () => this.refuse('malformed', undefined, ip, requestId),
      );
    return this.settle(jwt, verification, ip, requestId);
  }

  private settle(jwt: string, v: JwtVerification, ip: string, requestId: string | undefined): JwtAuthentication {
    if (!v.ok) {
      this.refuse(v.reason, v.issuerId, ip, requestId);
      return v.reason === 'unavailable' ? UNAVAILABLE : INVALID;
    }
    const now = this.clock.now();
    const username = `${v.issuerId}:${v.subject}`;
    const identity: Identity = Object.freeze({
      username,
      name: username,
      email: '',
      groups: Object.freeze([...v.groups]),
      provider: 'jwt',
      oauth: false,
      totp: false,
    });
    const answer: JwtAuthentication = Object.freeze({ kind: 'jwt', identity });
    const until = Math.min(v.expiresAt, now + VERIFIED_TTL_MS);
    if (until > now) {
      if (this.verified.size >= VERIFIED_MAX) this.verified = new Map();
      this.verified.set(jwt, { answer, until });
    }
    this.audit.record({ event: 'login_succeeded', username, method: 'jwt', ip, requestId });
    return answer;
  }

  private refuse(reason: string, issuerId: string | undefined, ip: string, requestId: string | undefined): JwtAuthentication {
    this.audit.record({ event: 'token_refused', reason, ip, requestId, ...(issuerId === undefined ? {} : { issuer: issuerId }) });
    return INVALID;
  }
}
