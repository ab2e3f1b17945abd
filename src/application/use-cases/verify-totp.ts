import { hasTotp, type Account } from '../../domain/account';
import { err, ok, type Result } from '../../domain/result';
import type { Session } from '../../domain/session';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { CredentialFingerprints } from '../ports/credential-fingerprints';
import type { IdGenerator } from '../ports/id-generator';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { SessionSealer } from '../ports/session-sealer';
import type { TotpVerifier } from '../ports/totp-verifier';
import type { UsedTotpSteps } from '../ports/used-totp-steps';
import type { UserStore } from '../ports/user-store';
import type { GuessTicket, LoginGuard } from '../services/login-guard';
import { isStoreUnavailable } from '../services/store-unavailable';
import type { RequestAuthenticator } from '../services/request-authenticator';
import type { GatewaySettings } from '../settings';

export interface VerifyTotpInput {
  /** The session cookie's value from the password step, if any. */
  readonly sessionToken?: string;
  readonly code: string;
  readonly ip: string;
  /** Correlates audit events with the request that caused them. */
  readonly requestId?: string;
}

export interface VerifyTotpOutput {
  readonly session: Session;
  /** The session sealed for the client (the cookie value). */
  readonly token: string;
}

export type VerifyTotpError =
  | { readonly code: 'not_pending' }
  | { readonly code: 'invalid_code' }
  | { readonly code: 'totp_replayed' }
  | { readonly code: 'account_locked'; readonly retryAfter: number }
  | { readonly code: 'store_unavailable' };

/** Completes a TOTP login: a valid, unused code turns the pending session into a full one. */
export class VerifyTotpUseCase {
  constructor(
    private readonly users: UserStore,
    private readonly totp: TotpVerifier,
    private readonly usedSteps: UsedTotpSteps,
    private readonly revoked: RevokedSessions,
    private readonly authenticator: RequestAuthenticator,
    private readonly guard: LoginGuard,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly settings: GatewaySettings,
    private readonly audit: AuditLog,
    private readonly fingerprints: CredentialFingerprints,
    private readonly sealer: SessionSealer,
  ) {}

  async execute(input: VerifyTotpInput): Promise<Result<VerifyTotpOutput, VerifyTotpError>> {
    try {
      return await this.attempt(input);
    } catch (e) {
      // The user store, the lock state or the used-step record is down: fail closed.
      if (isStoreUnavailable(e)) return err({ code: 'store_unavailable' });
      throw e;
    }
  }

  private async attempt(input: VerifyTotpInput): Promise<Result<VerifyTotpOutput, VerifyTotpError>> {
    const pending = await this.authenticator.session(input.sessionToken);
    const now = this.clock.now();
    if (pending === null || !pending.totpPending) return err({ code: 'not_pending' });

    // The code counts as a failure before it is checked, so simultaneous codes cannot outrun the lock.
    const reservation = await this.guard.reserve(pending.username, input.ip);
    if (reservation.kind === 'locked') return err({ code: 'account_locked', retryAfter: reservation.retryAfter });
    const { ticket } = reservation;

    let account: Account | null;
    let credential = '';
    let step: number | null = null;
    try {
      account = await this.users.findAccount(pending.username);
      // The password (or TOTP secret) changed since the password step: that step no longer counts.
      if (account !== null) credential = this.fingerprints.of(account);
      if (account !== null && hasTotp(account) && pending.credential === credential) step = await this.totp.verify(account.totpSecret as string, input.code, now);
    } catch (e) {
      // Unchecked: the code taught nothing and is given back.
      await this.guard.refund(ticket);
      throw e;
    }
    if (account === null || !hasTotp(account) || pending.credential !== credential) {
      await this.guard.refund(ticket);
      return err({ code: 'not_pending' });
    }
    if (step === null) return this.failed(account.username, input, ticket, 'invalid_code');
    // A step stays claimable for as long as its code could still be accepted (±1 step of drift).
    // A claim that throws keeps the reservation: the code was checked and found valid.
    if (!(await this.usedSteps.claim(account.username, step, now + 3 * 30_000))) {
      return this.failed(account.username, input, ticket, 'totp_replayed');
    }

    await this.guard.succeed(ticket);
    await this.revoked.revoke(pending.id, pending.expiresAt);
    const session: Session = {
      ...pending,
      name: account.name,
      email: account.email,
      groups: account.groups,
      totp: true,
      totpPending: false,
      id: this.ids.next(),
      issuedAt: now,
      expiresAt: now + this.settings.sessionLifetimeMs,
      credential,
    };
    this.audit.record({ event: 'login_succeeded', username: account.username, method: 'totp', ip: input.ip, requestId: input.requestId });
    return ok({ session, token: this.sealer.seal(session) });
  }

  private failed(username: string, input: VerifyTotpInput, ticket: GuessTicket, code: 'invalid_code' | 'totp_replayed'): Result<never, VerifyTotpError> {
    this.audit.record({ event: 'login_failed', login: username, method: 'totp', ip: input.ip, reason: code, requestId: input.requestId });
    this.guard.fail(ticket, input.requestId);
    return err({ code });
  }
}
