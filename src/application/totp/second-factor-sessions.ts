import type { Account } from '../../domain/account';
import type { Session } from '../../domain/session';
import type { SessionMethod } from '../../domain/login-methods';
import type { CredentialFingerprints } from '../ports/credential-fingerprints';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { SessionIndex } from '../ports/session-index';
import type { IssueRequest, SessionIssuer } from '../sessions/session-issuer';

/** The session that replaces the caller's after its account's second factor changed. */
export interface ReissuedSession {
  readonly session: Session;
  /** The session sealed for the client (the cookie value). */
  readonly token: string;
  /** How many sessions of the account were ended (the caller's own included). */
  readonly ended: number;
}

/**
 * What a change of an account's own second factor does to its sessions (ADR 0031): a session is
 * only as valid as the credential it came from (ADR 0008), and the credential now differs. Every
 * session of the account ends, listed in the session index and revoked explicitly (the changed
 * fingerprint ends them too, but a removal would bring the fingerprint of before the enrolment
 * back, and with it any cookie from then); the caller, who just proved the code, gets a new
 * session made for the new credential.
 */
export class SecondFactorSessions {
  constructor(
    private readonly index: SessionIndex,
    private readonly revoked: RevokedSessions,
    private readonly fingerprints: CredentialFingerprints,
    private readonly sessions: SessionIssuer,
  ) {}

  /**
   * Ends every session of `current`'s account and issues the replacement for `account` (as it
   * is now), marked second-factor verified when `totp`, recording what the change proved now
   * (`proves`: a TOTP code for a second-factor change, the password for a password change, issue
   * 36). Rejects with StateStoreUnavailableError when the index or a revocation cannot be read or
   * written.
   */
  async reissue(
    current: Session,
    account: Account,
    totp: boolean,
    method: string,
    device: IssueRequest,
    proves: readonly SessionMethod[] = ['totp'],
  ): Promise<ReissuedSession> {
    const sessions = await this.index.list(current.username.toLowerCase());
    const ending = sessions.some((s) => s.id === current.id) ? sessions : [...sessions, { id: current.id, expiresAt: current.expiresAt }];
    // The caller's own session last: if a write fails midway, it still holds a page to retry from.
    ending.sort((a, b) => Number(a.id === current.id) - Number(b.id === current.id));
    for (const s of ending) await this.revoked.revoke(s.id, s.expiresAt);
    // Not a login: the caller changed a second factor (audited as that change by the use case).
    const issued = await this.sessions.full(
      { ...current, name: account.name, email: account.email, groups: account.groups, totp, credential: this.fingerprints.of(account) },
      // What the change was made with (a TOTP code, or the password) was just checked: the new session records it.
      { method, audited: null, proves },
      device,
    );
    return { ...issued, ended: ending.length };
  }
}
