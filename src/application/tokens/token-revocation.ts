import { isLiveToken, tokenRevocationId } from '../../domain/access-token';
import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { AccessTokens } from './access-tokens';

/** Which token to end, of which account, and who asked. */
export interface TokenToRevoke {
  readonly username: string;
  readonly id: string;
  readonly by: 'account' | 'cli' | 'admin';
  /** The acting administrator, when `by` is admin (issue 36). */
  readonly admin?: string;
  readonly requestId?: string;
}

/**
 * The one way an access token is ended (issue 32), for the account API and the CLI. The revocation
 * is replicated first under tokenRevocationId (what forward auth checks, on every replica, as fast
 * as a logout), then the record is marked revoked (what the account page and the CLI show); it
 * resolves only when both are stored, so "revoked" is never said of a token that still works. A
 * failure midway leaves the record live and the retry safe. `token_not_found`: the account has no
 * live token with this id (another account's id gets the same answer). Throws what the stores
 * throw (an outage is the caller's `store_unavailable`).
 */
export class TokenRevocation {
  constructor(
    private readonly tokens: AccessTokens,
    private readonly revoked: RevokedSessions,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  async revoke(target: TokenToRevoke): Promise<Result<Record<string, never>, { readonly code: 'token_not_found' }>> {
    const now = this.clock.now();
    const record = (await this.tokens.list(target.username)).find((r) => r.id === target.id);
    if (record === undefined || !isLiveToken(record, now)) return err({ code: 'token_not_found' });
    await this.revoked.revoke(tokenRevocationId(record.id), record.expiresAt);
    await this.tokens.revoke(target.username, record.id, now);
    this.audit.record({
      event: 'token_revoked',
      username: target.username,
      id: record.id,
      by: target.by,
      ...(target.admin === undefined ? {} : { admin: target.admin }),
      requestId: target.requestId,
    });
    return ok({});
  }
}
