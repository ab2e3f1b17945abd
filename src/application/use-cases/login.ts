import { hasTotp } from '../../domain/account';
import { err, ok, type Result } from '../../domain/result';
import { identityOf, TOTP_PENDING_LIFETIME_MS, type Session } from '../../domain/session';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { CredentialCheck } from '../services/credential-check';
import type { PasskeySecondFactor } from '../services/passkey-second-factor';
import type { SessionSealer } from '../ports/session-sealer';
import type { SessionIndex } from '../ports/session-index';
import { indexedSessionOf } from '../services/session-registration';
import { unavailableAsError } from '../services/store-unavailable';
import type { GatewaySettings } from '../settings';

export interface LoginInput {
  /** Username or e-mail, as typed. */
  readonly login: string;
  readonly password: string;
  /** Client address, for the per-address lock. */
  readonly ip: string;
  /** Correlates audit events with the request that caused them. */
  readonly requestId?: string;
  /** The browser's User-Agent, kept in the session index for the account page. */
  readonly userAgent?: string;
}

/** A new session; when `session.totpPending` is true it passes nothing but the TOTP step. */
export interface LoginOutput {
  readonly session: Session;
  /** The session sealed for the client (the cookie value). */
  readonly token: string;
}

export type LoginError =
  { readonly code: 'invalid_credentials' } | { readonly code: 'account_locked'; readonly retryAfter: number } | { readonly code: 'store_unavailable' };

/**
 * Logs a person in with a password; accounts with TOTP get a short pending session instead. The
 * password is checked, counted and audited by {@link CredentialCheck}; a success is audited here,
 * once a full session exists.
 */
export class LoginUseCase {
  constructor(
    private readonly credentials: CredentialCheck,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly settings: GatewaySettings,
    private readonly audit: AuditLog,
    private readonly sealer: SessionSealer,
    private readonly index: SessionIndex,
    /** Whether an account owes a passkey (or its TOTP code) after the password (PASSKEY_SECOND_FACTOR or its own choice); null with PASSKEYS off. */
    private readonly passkeySecondFactor: PasskeySecondFactor | null = null,
  ) {}

  async execute(input: LoginInput): Promise<Result<LoginOutput, LoginError>> {
    const checked = await this.credentials.password({ login: input.login, password: input.password, ip: input.ip, requestId: input.requestId });
    if (!checked.ok) return err(checked.error);
    const { account, credential } = checked.value;

    // Whether a second factor is owed cannot be told, or the session cannot be indexed: fail closed.
    return unavailableAsError(async () => {
      const now = this.clock.now();
      const pending = hasTotp(account) || (this.passkeySecondFactor !== null && (await this.passkeySecondFactor.owed(account.username)));
      const session: Session = {
        ...identityOf(account, 'username', false),
        id: this.ids.next(),
        issuedAt: now,
        expiresAt: now + (pending ? Math.min(TOTP_PENDING_LIFETIME_MS, this.settings.sessionLifetimeMs) : this.settings.sessionLifetimeMs),
        totpPending: pending,
        // The session ends when this credential changes (see RequestAuthenticator).
        credential,
      };
      if (!pending) {
        // A full session is indexed before it is handed out: one "sign out everywhere" could not
        // find must not exist. A pending one is not (it passes nothing but the TOTP step, and lives minutes).
        await this.index.register(indexedSessionOf(session, 'password', input));
        this.audit.record({ event: 'login_succeeded', username: account.username, method: 'password', ip: input.ip, requestId: input.requestId });
      }
      return ok({ session, token: this.sealer.seal(session) });
    });
  }
}
