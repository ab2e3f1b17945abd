import { hasTotp } from '../../domain/account';
import { err, ok, type Result } from '../../domain/result';
import { identityOf, type Session } from '../../domain/session';
import type { CredentialCheck } from './credential-check';
import type { PasskeySecondFactor } from '../passkeys/passkey-second-factor';
import type { SessionIssuer } from '../sessions/session-issuer';
import { unavailableAsError } from '../store-unavailable';

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
  /** "Keep me signed in" (issue 33): the session lives REMEMBER_ME_EXPIRY when that is on. */
  readonly remember?: boolean;
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
    private readonly sessions: SessionIssuer,
    /** Whether an account owes a passkey (or its TOTP code) after the password (PASSKEY_SECOND_FACTOR or its own choice); null with PASSKEYS off. */
    private readonly passkeySecondFactor: PasskeySecondFactor | null = null,
  ) {}

  async execute(input: LoginInput): Promise<Result<LoginOutput, LoginError>> {
    const checked = await this.credentials.password({ login: input.login, password: input.password, ip: input.ip, requestId: input.requestId });
    if (!checked.ok) return err(checked.error);
    const { account, credential } = checked.value;

    // Whether a second factor is owed cannot be told, or the session cannot be indexed: fail closed.
    return unavailableAsError(async () => {
      const pending = hasTotp(account) || (this.passkeySecondFactor !== null && (await this.passkeySecondFactor.owed(account.username)));
      // The session ends when this credential changes (see RequestAuthenticator).
      const claims = { ...identityOf(account, 'username', false), credential, ...(input.remember === true ? { remember: true as const } : {}) };
      // A pending session passes nothing but the second step, and lives minutes: not indexed.
      return ok(pending ? this.sessions.pending(claims) : await this.sessions.full(claims, { method: 'password', proves: ['password'] }, input));
    });
  }
}
