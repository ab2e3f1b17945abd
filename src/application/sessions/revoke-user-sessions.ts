import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { SessionIndex } from '../ports/session-index';
import { unavailableAsError } from '../store-unavailable';
import { liveSessionsOf } from '../account/list-account-sessions';

export interface RevokeUserSessionsInput {
  /** The account whose sessions end (as the index keys it: the username, or the e-mail of OAuth sessions). */
  readonly username: string;
  /** One session of that account; absent: all of them. */
  readonly id?: string;
}

/**
 * `session_not_found`: `id` names no live session of that account. `store_unavailable`: the
 * index or the revocations cannot be read or written now.
 */
export type RevokeUserSessionsError = { readonly code: 'session_not_found' } | { readonly code: 'store_unavailable' };

/**
 * The operator's "sign out everywhere" for an account (`portcullis sessions revoke`): ends one or
 * all of its indexed sessions, each revocation stored before it counts.
 */
export class RevokeUserSessionsUseCase {
  constructor(
    private readonly index: SessionIndex,
    private readonly revoked: RevokedSessions,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: RevokeUserSessionsInput): Promise<Result<{ readonly revoked: number }, RevokeUserSessionsError>> {
    return unavailableAsError(async () => {
      const live = await liveSessionsOf(input.username, this.index, this.revoked);
      const chosen = input.id === undefined ? live : live.filter((s) => s.id === input.id);
      if (input.id !== undefined && chosen.length === 0) return err({ code: 'session_not_found' });
      for (const s of chosen) await this.revoked.revoke(s.id, s.expiresAt);
      this.audit.record({
        event: 'sessions_revoked',
        username: input.username.toLowerCase(),
        scope: input.id === undefined ? 'all' : 'one',
        count: chosen.length,
        by: 'cli',
      });
      return ok({ revoked: chosen.length });
    });
  }
}
