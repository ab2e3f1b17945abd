import { err, ok, type Result } from '../../domain/result';
import type { Session } from '../../domain/session';
import type { Clock } from '../ports/clock';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { CredentialCheck } from '../password/credential-check';
import type { SessionIssuer } from '../sessions/session-issuer';
import { unavailableAsError } from '../store-unavailable';
import type { RequestAuthenticator } from '../sessions/request-authenticator';

export interface VerifyTotpInput {
  /** The session cookie's value from the password step, if any. */
  readonly sessionToken?: string;
  readonly code: string;
  readonly ip: string;
  /** Correlates audit events with the request that caused them. */
  readonly requestId?: string;
  /** The browser's User-Agent, kept in the session index for the account page. */
  readonly userAgent?: string;
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

/**
 * Completes a TOTP login: a valid, unused code turns the pending session into a full one. The code
 * is checked, counted and audited by {@link CredentialCheck}; a success is audited here, once the
 * pending session is revoked.
 */
export class VerifyTotpUseCase {
  constructor(
    private readonly revoked: RevokedSessions,
    private readonly authenticator: RequestAuthenticator,
    private readonly credentials: CredentialCheck,
    private readonly clock: Clock,
    private readonly sessions: SessionIssuer,
  ) {}

  async execute(input: VerifyTotpInput): Promise<Result<VerifyTotpOutput, VerifyTotpError>> {
    // Fails closed when the session's revocation record is down (reading the pending session or revoking it).
    return unavailableAsError(() => this.attempt(input));
  }

  private async attempt(input: VerifyTotpInput): Promise<Result<VerifyTotpOutput, VerifyTotpError>> {
    const pending = await this.authenticator.session(input.sessionToken);
    const now = this.clock.now();
    if (pending === null || !pending.totpPending) return err({ code: 'not_pending' });

    const checked = await this.credentials.totpCode({
      username: pending.username,
      credential: pending.credential,
      code: input.code,
      ip: input.ip,
      at: now,
      requestId: input.requestId,
    });
    if (!checked.ok) return err(checked.error);
    const { account, credential } = checked.value;

    await this.revoked.revoke(pending.id, pending.expiresAt);
    // Indexed before it is handed out (a failure here is store_unavailable, see execute).
    return ok(
      await this.sessions.full(
        { ...pending, name: account.name, email: account.email, groups: account.groups, totp: true, credential },
        { method: 'totp', proves: ['totp'] },
        input,
      ),
    );
  }
}
