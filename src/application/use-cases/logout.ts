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

/** Ends a session on the server too, so a copied cookie stops working at once. */
export class LogoutUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly revokedSessions: RevokedSessions,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: LogoutInput): Promise<LogoutOutput> {
    let session;
    try {
      session = await this.authenticator.session(input.sessionToken);
    } catch (e) {
      // Revocations cannot be read yet (a replica still syncing): revoking again is harmless, refusing the logout is not.
      if (!isStoreUnavailable(e)) throw e;
      session = this.authenticator.unexpiredSession(input.sessionToken);
    }
    if (session === null) return { revoked: false };
    // Kept only until the session would have expired anyway: the revocation list stays bounded.
    await this.revokedSessions.revoke(session.id, session.expiresAt);
    this.audit.record({ event: 'logout', username: session.username, requestId: input.requestId });
    return { revoked: true };
  }
}
