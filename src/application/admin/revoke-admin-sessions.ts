import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { SessionIndex } from '../ports/session-index';
import { unavailableAsError } from '../store-unavailable';
import type { AccountDirectory } from './account-directory';
import { type AdminGate, type AdminRefusal, type AdminRequest, admitChange } from './admin-gate';
import { liveSessionsOfPeople } from './list-admin-sessions';

/** One session by id, or every session of one person. */
export type AdminSessionsToRevoke = { readonly id: string } | { readonly username: string };

export interface RevokeAdminSessionsInput extends AdminRequest {
  /** Whether the request provably comes from the gateway's own pages: refused otherwise (CSRF). */
  readonly fromThisSite: boolean;
  readonly target: AdminSessionsToRevoke;
}

/** `session_not_found`: the id names no live session of anyone listed. */
export type RevokeAdminSessionsError = AdminRefusal | { readonly code: 'cross_site_request' } | { readonly code: 'session_not_found' };

/**
 * `POST /api/admin/sessions/revoke` (issue 36): ends sessions through the revocation store every
 * replica reads, and answers only once each revocation is stored.
 */
export class RevokeAdminSessionsUseCase {
  constructor(
    private readonly gate: AdminGate,
    private readonly directory: AccountDirectory,
    private readonly index: SessionIndex,
    private readonly revoked: RevokedSessions,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: RevokeAdminSessionsInput): Promise<Result<{ readonly revoked: number }, RevokeAdminSessionsError>> {
    const admitted = await admitChange(this.gate, this.audit, input);
    if (!admitted.ok) return admitted;
    const admin = admitted.value.identity.username;
    const target = input.target;
    return unavailableAsError(async () => {
      const live = await liveSessionsOfPeople('username' in target ? target.username : null, this.directory, this.index, this.revoked);
      const chosen = 'id' in target ? live.filter((s) => s.id === target.id) : live;
      if ('id' in target && chosen.length === 0) return err({ code: 'session_not_found' as const });
      for (const s of chosen) await this.revoked.revoke(s.id, s.expiresAt);
      const username = 'username' in target ? target.username : chosen[0].username;
      this.audit.record({
        event: 'sessions_revoked',
        username,
        scope: 'id' in target ? 'one' : 'all',
        count: chosen.length,
        by: 'admin',
        admin,
        requestId: input.requestId,
      });
      return ok({ revoked: chosen.length });
    });
  }
}
