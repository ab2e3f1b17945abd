import { err, ok, type Result } from '../../domain/result';
import { identityOf, type Session } from '../../domain/session';
import type { Clock } from '../ports/clock';
import type { CredentialFingerprints } from '../ports/credential-fingerprints';
import type { PasskeyChallengeSealer } from './passkey-challenge-sealer';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { UserStore } from '../ports/user-store';
import type { SessionIssuer } from '../sessions/session-issuer';
import type { PasskeyAssertionCheck } from './passkey-assertion-check';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import { unavailableAsError } from '../store-unavailable';

export interface FinishPasskeyLoginInput {
  readonly challengeToken?: string;
  /** The pending session's cookie (second factor), if any. */
  readonly sessionToken?: string;
  /** The browser's `AuthenticationResponseJSON`, unchecked. */
  readonly response: unknown;
  readonly ip: string;
  readonly requestId?: string;
  /** The User-Agent header, for the account page's session list. */
  readonly userAgent?: string;
}

export interface FinishPasskeyLoginOutput {
  readonly session: Session;
  readonly token: string;
}

export type FinishPasskeyLoginError =
  /** No ceremony, an expired or used one, or (second factor) one of another session. */
  | { readonly code: 'challenge_invalid' }
  /** Unknown passkey, a bad signature, wrong origin or relying party, a counter that went back, or its account gone or changed. */
  | { readonly code: 'passkey_invalid' }
  | { readonly code: 'account_locked'; readonly retryAfter: number }
  | { readonly code: 'store_unavailable' };

/**
 * Completes a passkey login, or a password login's second step with a passkey. A passkey login
 * is a full login that counts as two factors (something the person has, verified by something
 * they know or are), so its session passes `require_second_factor` rules. The assertion is
 * checked, counted and claimed by {@link PasskeyAssertionCheck}; a success clears the account's
 * failures.
 */
export class FinishPasskeyLoginUseCase {
  constructor(
    private readonly users: UserStore,
    private readonly sealer: PasskeyChallengeSealer,
    private readonly assertions: PasskeyAssertionCheck,
    private readonly authenticator: RequestAuthenticator,
    private readonly revoked: RevokedSessions,
    private readonly fingerprints: CredentialFingerprints,
    private readonly clock: Clock,
    /** Issues the session: indexed for "sign out everywhere", audited, sealed. */
    private readonly sessions: SessionIssuer,
  ) {}

  async execute(input: FinishPasskeyLoginInput): Promise<Result<FinishPasskeyLoginOutput, FinishPasskeyLoginError>> {
    return unavailableAsError(() => this.attempt(input));
  }

  private async attempt(input: FinishPasskeyLoginInput): Promise<Result<FinishPasskeyLoginOutput, FinishPasskeyLoginError>> {
    const now = this.clock.now();
    const challenge = input.challengeToken === undefined ? null : this.sealer.unseal(input.challengeToken);
    if (challenge === null || (challenge.purpose !== 'login' && challenge.purpose !== 'second_factor') || challenge.expiresAt <= now)
      return err({ code: 'challenge_invalid' });
    let pending: Session | null = null;
    if (challenge.purpose === 'second_factor') {
      pending = await this.authenticator.session(input.sessionToken);
      if (pending === null || !pending.totpPending || pending.id !== challenge.sessionId || pending.username !== challenge.username)
        return err({ code: 'challenge_invalid' });
    }
    const checked = await this.assertions.check(
      // The password was a second factor's first: the passkey proves possession, verifying the person is not required.
      { response: input.response, challenge, owner: pending?.username ?? null, userVerification: pending === null, ip: input.ip, requestId: input.requestId },
      async (passkey) => {
        const account = await this.users.currentAccount(passkey.username);
        // A service account never logs in (issue 32), not even with a passkey left from another life of its name.
        if (account === null || account.service === true) return null;
        const credential = this.fingerprints.of(account);
        // The account is gone, or (second factor) its password changed since the password step.
        return pending !== null && pending.credential !== credential ? null : { account, credential };
      },
    );
    if (!checked.ok) return checked;
    const { account, credential } = checked.value;
    if (pending !== null) await this.revoked.revoke(pending.id, pending.expiresAt);
    // Indexed before it is handed out, like every full session (a store that cannot answer: 503).
    // After a password (a second factor's first step), the session proved both.
    const claims = {
      ...identityOf(account, 'username', true),
      credential,
      ...(pending !== null ? { proven: pending.proven } : {}),
      // "Keep me signed in" ticked at the password step (issue 33).
      ...(pending?.remember === true ? { remember: true as const } : {}),
    };
    return ok(await this.sessions.full(claims, { method: 'passkey', proves: ['passkey'] }, input));
  }
}
