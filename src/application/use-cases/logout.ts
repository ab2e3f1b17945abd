import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { RequestAuthenticator } from '../services/request-authenticator';
import { isStoreUnavailable } from '../services/store-unavailable';

export interface LogoutInput {
  /** The session cookie's value, if any. */
  readonly sessionToken?: string;
  /** Correlates the audit event with the request that caused it. */
  readonly requestId?: string;
}

export interface LogoutOutput {
  /** Whether a live session was revoked (logging out twice is fine and revokes nothing). */
  readonly revoked: boolean;
}

/** The revocation could not be stored: the session is not ended, and the client must keep its cookie and retry. */
export type LogoutError = { readonly code: 'store_unavailable' };

/**
 * Ends a session on the server too, so a copied cookie stops working at once. Succeeds only once
 * the revocation is stored: a "logged out" that a copied cookie survives is never reported.
 */
export class LogoutUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly revokedSessions: RevokedSessions,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: LogoutInput): Promise<Result<LogoutOutput, LogoutError>> {
    const session = await this.authenticator.session(input.sessionToken);
    if (session === null) return ok({ revoked: false });
    try {
      // Kept only until the session would have expired anyway: the revocation list stays bounded.
      await this.revokedSessions.revoke(session.id, session.expiresAt);
    } catch (e) {
      if (isStoreUnavailable(e)) return err({ code: 'store_unavailable' });
      throw e;
    }
    this.audit.record({ event: 'logout', username: session.username, requestId: input.requestId });
    return ok({ revoked: true });
  }
}
