import type { Account } from './account';
import type { ProvenMethods } from './login-methods';

/**
 * Where an identity came from: `username` for local accounts, `basic` for HTTP Basic, `jwt` for a
 * workload's JWT from a configured issuer (issue 32), else the OAuth provider.
 */
export type IdentityProvider = 'username' | 'basic' | 'github' | 'google' | 'generic' | 'ldap' | 'jwt' | (string & {});

/** Who is making a request, once they have proven it. */
export interface Identity {
  readonly username: string;
  readonly name: string;
  readonly email: string;
  readonly groups: readonly string[];
  readonly provider: IdentityProvider;
  readonly oauth: boolean;
  /** True when this identity passed a TOTP check (for rules that demand a second factor). */
  readonly totp: boolean;
  /**
   * Set when the request came with an access token (issue 32): the applications the token may
   * open (null: every one its owner may). Absent for sessions and HTTP Basic.
   */
  readonly token?: TokenScope;
  /**
   * For a session (issue 33): which methods it proved and when, for per-path requirements and the
   * upstream's `amr` / `auth_time`. Absent for HTTP Basic, access tokens and JWTs.
   */
  readonly proven?: ProvenMethods;
}

/** What an access token adds to its owner's identity: the applications it is scoped to. */
export interface TokenScope {
  readonly id: string;
  readonly apps: readonly string[] | null;
}

/** A login that a cookie carries. Times are milliseconds since the epoch. */
export interface Session extends Identity {
  /** Random id, used to revoke the session server-side at logout. */
  readonly id: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** Password accepted, TOTP code still owed: passes nothing but `/api/totp`. */
  readonly totpPending: boolean;
  /**
   * For a session of a password account: the fingerprint of the account's credential when the
   * session was made (see `CredentialFingerprints`). The session is valid only while the account's
   * current credential has the same fingerprint. Absent for OAuth sessions (no local credential);
   * a password session without one (sealed by an older version) is refused.
   */
  readonly credential?: string;
  /** What this session proved and when; a step-up adds to it and never takes away (`{}` in a cookie sealed before issue 33). */
  readonly proven: ProvenMethods;
  /** Made with "Keep me signed in" (issue 33): it lives, and is renewed for, REMEMBER_ME_EXPIRY. */
  readonly remember?: true;
  /**
   * Set when SESSION_MAX_LIFETIME was on at login (issue 33): while in use the session is renewed
   * (same id, later expiry) up to this time, never past it. Absent: it ends at `expiresAt`.
   */
  readonly renewableUntil?: number;
}

/** Longest a password-accepted, code-pending session may live. */
export const TOTP_PENDING_LIFETIME_MS = 5 * 60 * 1000;

export function identityOf(account: Account, provider: IdentityProvider, totp: boolean): Identity {
  return {
    username: account.username,
    name: account.name,
    email: account.email,
    groups: account.groups,
    provider,
    oauth: false,
    totp,
  };
}

export function isActive(session: Session, now: number): boolean {
  return session.expiresAt > now && session.issuedAt <= now + 60_000;
}
