import { counterMayFollow, type Passkey } from '../../domain/passkey';
import { err, ok, type Result } from '../../domain/result';
import { identityOf, type Session } from '../../domain/session';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { CredentialFingerprints } from '../ports/credential-fingerprints';
import type { IdGenerator } from '../ports/id-generator';
import type { PasskeyCeremonies } from '../ports/passkey-ceremonies';
import type { PasskeyChallengeSealer } from '../ports/passkey-challenge-sealer';
import type { PasskeyCredentials } from '../ports/passkey-credentials';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { SessionSealer } from '../ports/session-sealer';
import type { SessionIndex } from '../ports/session-index';
import { indexedSessionOf } from '../services/session-registration';
import type { UsedOAuthFlows } from '../ports/used-oauth-flows';
import type { UserStore } from '../ports/user-store';
import type { GuessTicket, LoginGuard } from '../services/login-guard';
import type { RequestAuthenticator } from '../services/request-authenticator';
import { unavailableAsError } from '../services/store-unavailable';
import type { GatewaySettings } from '../settings';

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
 * they know or are), so its session passes `require_second_factor` rules.
 *
 * Like a password, an assertion is a guess under the {@link LoginGuard}: counted before it is
 * checked, per account (the passkey's owner; an unknown passkey counts under its id) and per
 * address; a failure is audited (`method: passkey`) and may lock; a success clears the account's
 * failures. The ceremony is claimed before the signature is checked, so an answer is used once.
 */
export class FinishPasskeyLoginUseCase {
  constructor(
    private readonly users: UserStore,
    private readonly passkeys: PasskeyCredentials,
    private readonly ceremonies: PasskeyCeremonies,
    private readonly sealer: PasskeyChallengeSealer,
    private readonly used: UsedOAuthFlows,
    private readonly guard: LoginGuard,
    private readonly authenticator: RequestAuthenticator,
    private readonly revoked: RevokedSessions,
    private readonly fingerprints: CredentialFingerprints,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly settings: GatewaySettings,
    private readonly audit: AuditLog,
    private readonly sessions: SessionSealer,
    /** The per-account session index ("sign out everywhere"); every full session is registered in it. */
    private readonly index: SessionIndex,
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
    const credentialId = this.ceremonies.credentialIdOf(input.response);
    if (credentialId === null) return err({ code: 'passkey_invalid' });
    const passkey = await this.passkeys.find(credentialId);
    // One lock per account: the passkey's owner (a second factor's account); an unknown passkey under its own id.
    const lockName = pending?.username ?? passkey?.username ?? `passkey:${credentialId.slice(0, 64)}`;
    const reservation = await this.guard.reserve(lockName, input.ip);
    if (reservation.kind === 'locked') return err({ code: 'account_locked', retryAfter: reservation.retryAfter });
    const { ticket } = reservation;
    try {
      return await this.verify(input, ticket, lockName, challenge.challenge, challenge.id, challenge.expiresAt, passkey, pending, now);
    } catch (e) {
      await this.guard.refund(ticket);
      throw e;
    }
  }

  private async verify(
    input: FinishPasskeyLoginInput,
    ticket: GuessTicket,
    lockName: string,
    challenge: string,
    challengeId: string,
    challengeExpiresAt: number,
    passkey: Passkey | null,
    pending: Session | null,
    now: number,
  ): Promise<Result<FinishPasskeyLoginOutput, FinishPasskeyLoginError>> {
    // Single use on every replica, claimed before the signature is checked.
    if (!(await this.used.use(`passkey:${challengeId}`, challengeExpiresAt)))
      return this.failed(ticket, lockName, 'challenge_replayed', input, 'challenge_invalid');
    if (passkey === null) return this.failed(ticket, lockName, 'unknown_passkey', input);
    // A second factor must be one of the pending account's own passkeys.
    if (pending !== null && passkey.username !== pending.username) return this.failed(ticket, lockName, 'foreign_passkey', input);
    const asserted = await this.ceremonies.verifyAuthentication(input.response, challenge, passkey, pending === null);
    if (asserted === null) return this.failed(ticket, lockName, 'invalid_assertion', input);
    if (!counterMayFollow(passkey.counter, asserted.counter)) {
      this.audit.record({
        event: 'passkey_counter_regressed',
        username: passkey.username,
        credential: passkey.id.slice(0, 12),
        stored: passkey.counter,
        presented: asserted.counter,
        ip: input.ip,
        requestId: input.requestId,
      });
      return this.failed(ticket, lockName, 'counter_regressed', input);
    }
    if (!(await this.passkeys.recordUse(passkey.id, passkey.counter, asserted.counter, now))) return this.failed(ticket, lockName, 'counter_regressed', input);

    const account = await this.users.currentAccount(passkey.username);
    const credential = account === null ? '' : this.fingerprints.of(account);
    // The account is gone, or (second factor) its password changed since the password step.
    if (account === null || (pending !== null && pending.credential !== credential)) {
      await this.guard.refund(ticket);
      return err({ code: 'passkey_invalid' });
    }
    await this.guard.succeed(ticket);
    if (pending !== null) await this.revoked.revoke(pending.id, pending.expiresAt);
    const session: Session = {
      ...identityOf(account, 'username', true),
      id: this.ids.next(),
      issuedAt: now,
      expiresAt: now + this.settings.sessionLifetimeMs,
      totpPending: false,
      credential,
    };
    // Indexed before it is handed out, like every full session (a store that cannot answer: 503).
    await this.index.register(indexedSessionOf(session, 'passkey', input));
    this.audit.record({ event: 'login_succeeded', username: account.username, method: 'passkey', ip: input.ip, requestId: input.requestId });
    return ok({ session, token: this.sessions.seal(session) });
  }

  private failed(
    ticket: GuessTicket,
    login: string,
    reason: string,
    input: FinishPasskeyLoginInput,
    code: 'challenge_invalid' | 'passkey_invalid' = 'passkey_invalid',
  ): Result<never, FinishPasskeyLoginError> {
    this.audit.record({ event: 'login_failed', login, method: 'passkey', ip: input.ip, reason, requestId: input.requestId });
    this.guard.fail(ticket, input.requestId);
    return err({ code });
  }
}
