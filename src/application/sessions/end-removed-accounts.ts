import type { AuditLog } from '../ports/audit-log';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { SessionIndex } from '../ports/session-index';

/**
 * An account removed or disabled in the users file is out everywhere at once: every indexed
 * session of it is revoked (so every replica refuses it, and the apps it logged in to through the
 * provider are told by back-channel logout and their tokens from it end), not only refused when
 * next seen. Each replica that reloads the file does this; revoking twice is harmless, and each
 * app is told once.
 */
export class EndRemovedAccountsUseCase {
  constructor(
    private readonly index: SessionIndex,
    private readonly revoked: RevokedSessions,
    private readonly audit: AuditLog,
  ) {}

  /** Resolves how many sessions ended; a store that fails is left to the check every request makes (the account is gone). */
  async execute(usernames: readonly string[]): Promise<number> {
    let ended = 0;
    for (const username of usernames) {
      let count = 0;
      try {
        for (const s of await this.index.list(username)) {
          await this.revoked.revoke(s.id, s.expiresAt);
          count += 1;
        }
      } catch {
        // The sessions are refused anyway at their next request (account_removed); only the prompt end is lost.
      }
      if (count > 0) this.audit.record({ event: 'sessions_revoked', username: username.toLowerCase(), scope: 'all', count, by: 'users_file' });
      ended += count;
    }
    return ended;
  }
}
