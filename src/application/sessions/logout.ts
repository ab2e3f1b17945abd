import { latestExpiry } from '../../domain/session-lifetime';
import { err, ok, type Result } from '../../domain/result';
import type { Session } from '../../domain/session';
import type { AuditLog } from '../ports/audit-log';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { RequestAuthenticator } from './request-authenticator';
import { isStoreUnavailable, valueOrUnavailable } from '../store-unavailable';

export interface LogoutInput {
  /** The session cookie's value, if any. */
  readonly sessionToken?: string;
  /**
   * Whether the request may come from the gateway's own pages: false only on positive evidence of
   * another site (the HTTP adapter reads Sec-Fetch-Site and Origin). A cross-site request is
   * refused: another site must not be able to end a session (login CSRF's twin).
   */
  readonly fromThisSite: boolean;
  /** The client's address, for the audit of a refused request. */
  readonly ip?: string;
  /** Correlates the audit event with the request that caused it. */
  readonly requestId?: string;
}

export interface LogoutOutput {
  /** Whether a live session was revoked (logging out twice is fine and revokes nothing). */
  readonly revoked: boolean;
  /** The id of the session revoked (what front-channel logout pages are kept under). */
  readonly sessionId?: string;
}

/**
 * `cross_site_request`: the request did not come from the gateway's own pages (CSRF), nothing ended.
 * `store_unavailable`: the revocation could not be stored: the session is not ended, and the
 * client must keep its cookie and retry.
 */
export type LogoutError = { readonly code: 'cross_site_request' } | { readonly code: 'store_unavailable' };

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
    if (!input.fromThisSite) {
      this.audit.record({ event: 'logout_refused', ip: input.ip ?? 'unknown', reason: 'cross_site', requestId: input.requestId });
      return err({ code: 'cross_site_request' });
    }
    let session: Session | null;
    try {
      session = await this.authenticator.session(input.sessionToken);
    } catch (e) {
      // Revocations cannot be read yet (a replica still syncing): revoking again is harmless, refusing the logout is not.
      if (!isStoreUnavailable(e)) throw e;
      session = this.authenticator.unexpiredSession(input.sessionToken);
    }
    if (session === null) return ok({ revoked: false });
    // Kept only until the session (or a renewed copy of its cookie) would have expired anyway: the revocation list stays bounded.
    const stored = await valueOrUnavailable(() => this.revokedSessions.revoke(session.id, latestExpiry(session)));
    if (!stored.ok) return stored;
    this.audit.record({ event: 'logout', username: session.username, requestId: input.requestId });
    return ok({ revoked: true, sessionId: session.id });
  }
}
