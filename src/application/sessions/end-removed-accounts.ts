import { isLiveToken } from '../../domain/access-token';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { SessionIndex } from '../ports/session-index';
import type { AccessTokens } from '../tokens/access-tokens';
import type { TokenRevocation } from '../tokens/token-revocation';

/** Where the account was removed or disabled: the users file, or the LDAP directory (found by the account check). */
export type RemovedFrom = 'users_file' | 'ldap';

/**
 * How sessions of an account in the user stores are made (session-issuer callers): any other
 * method is an OAuth provider's id, whose sessions do not hang on a local account.
 */
const LOCAL_METHODS: ReadonlySet<string> = new Set(['password', 'totp', 'passkey']);

/**
 * An account removed or disabled in the users file or the directory is out everywhere at once:
 * every indexed session of it is revoked (so every replica refuses it, and the apps it logged in
 * to through the provider are told by back-channel logout and their tokens from it end), and so
 * is every live access token of it, not only refused when next seen. Acting twice, or on several
 * replicas, is harmless: a session already revoked is skipped (so it is counted and its apps told
 * once), a token already revoked is not found live again. Sessions made through an OAuth provider
 * are left alone: they never stood on the local account.
 */
export class EndRemovedAccountsUseCase {
  constructor(
    private readonly index: SessionIndex,
    private readonly revoked: RevokedSessions,
    private readonly audit: AuditLog,
    private readonly tokens: AccessTokens,
    private readonly revocation: TokenRevocation,
    private readonly clock: Clock,
  ) {}

  /**
   * Resolves how many sessions ended; a store that fails is left to the check every request makes
   * (the account is gone), and to the next removal check.
   */
  async execute(usernames: readonly string[], by: RemovedFrom = 'users_file'): Promise<number> {
    let ended = 0;
    for (const username of usernames) {
      const count = await this.endSessions(username);
      if (count > 0) this.audit.record({ event: 'sessions_revoked', username: username.toLowerCase(), scope: 'all', count, by });
      ended += count;
      await this.endTokens(username, by);
    }
    return ended;
  }

  private async endSessions(username: string): Promise<number> {
    let count = 0;
    try {
      for (const s of await this.index.list(username)) {
        if (!LOCAL_METHODS.has(s.method) || (await this.revoked.isRevoked(s.id))) continue;
        await this.revoked.revoke(s.id, s.expiresAt);
        count += 1;
      }
    } catch {
      // The sessions are refused anyway at their next request (account_removed); only the prompt end is lost.
    }
    return count;
  }

  private async endTokens(username: string, by: RemovedFrom): Promise<void> {
    try {
      const now = this.clock.now();
      for (const token of await this.tokens.list(username)) {
        if (isLiveToken(token, now)) await this.revocation.revoke({ username, id: token.id, by });
      }
    } catch {
      // As for sessions: every request with the token asks for its account, which is gone.
    }
  }
}
