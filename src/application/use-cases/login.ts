import { hasTotp } from '../../domain/account';
import { addressBlock } from '../../domain/ip-address';
import { err, ok, type Result } from '../../domain/result';
import { identityOf, TOTP_PENDING_LIFETIME_MS, type Session } from '../../domain/session';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { CredentialFingerprints } from '../ports/credential-fingerprints';
import type { IdGenerator } from '../ports/id-generator';
import type { SessionSealer } from '../ports/session-sealer';
import type { UserStore } from '../ports/user-store';
import type { LoginGuard } from '../services/login-guard';
import { isStoreUnavailable } from '../services/store-unavailable';
import type { GatewaySettings } from '../settings';

export interface LoginInput {
  /** Username or e-mail, as typed. */
  readonly login: string;
  readonly password: string;
  /** Client address, for the per-address lock. */
  readonly ip: string;
  /** Correlates audit events with the request that caused them. */
  readonly requestId?: string;
}

/** A new session; when `session.totpPending` is true it passes nothing but the TOTP step. */
export interface LoginOutput {
  readonly session: Session;
  /** The session sealed for the client (the cookie value). */
  readonly token: string;
}

export type LoginError =
  | { readonly code: 'invalid_credentials' }
  | { readonly code: 'account_locked'; readonly retryAfter: number }
  | { readonly code: 'store_unavailable' };

/** Logs a person in with a password; accounts with TOTP get a short pending session instead. */
export class LoginUseCase {
  constructor(
    private readonly users: UserStore,
    private readonly guard: LoginGuard,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly settings: GatewaySettings,
    private readonly audit: AuditLog,
    private readonly fingerprints: CredentialFingerprints,
    private readonly sealer: SessionSealer,
  ) {}

  async execute(input: LoginInput): Promise<Result<LoginOutput, LoginError>> {
    try {
      return await this.attempt(input);
    } catch (e) {
      // The user store or the shared lock state is down: fail closed, never as a wrong password.
      if (isStoreUnavailable(e)) return err({ code: 'store_unavailable' });
      throw e;
    }
  }

  private async attempt(input: LoginInput): Promise<Result<LoginOutput, LoginError>> {
    const login = input.login.trim();
    const account = await this.users.findAccount(login);
    // One lock per account, whichever of its names was typed; unknown names lock under what was typed.
    const lockName = account?.username ?? login;
    // The guess counts as a failure before it is checked, so simultaneous guesses cannot outrun the lock.
    const reservation = await this.guard.reserve(lockName, input.ip);
    if (reservation.kind === 'locked') return err({ code: 'account_locked', retryAfter: reservation.retryAfter });
    const { ticket } = reservation;

    let valid: boolean;
    try {
      // An unknown name costs what a wrong password costs in the store that would have checked it.
      // The hasher's waiting line is shared fairly per address block: one block cannot fill it.
      const requester = addressBlock(input.ip);
      valid = account === null ? await this.users.verifyDecoy(login, input.password, requester) : await this.users.verifyPassword(account, input.password, requester);
    } catch (e) {
      // Unchecked, or the answer never reaches the client: the guess taught nothing and is given back.
      await this.guard.refund(ticket);
      throw e;
    }
    if (account === null || !valid) {
      this.audit.record({ event: 'login_failed', login, method: 'password', ip: input.ip, reason: 'invalid_credentials', requestId: input.requestId });
      this.guard.fail(ticket, input.requestId);
      return err({ code: 'invalid_credentials' });
    }
    await this.guard.succeed(ticket);

    const now = this.clock.now();
    const pending = hasTotp(account);
    const session: Session = {
      ...identityOf(account, 'username', false),
      id: this.ids.next(),
      issuedAt: now,
      expiresAt: now + (pending ? Math.min(TOTP_PENDING_LIFETIME_MS, this.settings.sessionLifetimeMs) : this.settings.sessionLifetimeMs),
      totpPending: pending,
      // The session ends when this credential changes (see RequestAuthenticator).
      credential: this.fingerprints.of(account),
    };
    if (!pending) this.audit.record({ event: 'login_succeeded', username: account.username, method: 'password', ip: input.ip, requestId: input.requestId });
    return ok({ session, token: this.sealer.seal(session) });
  }
}
