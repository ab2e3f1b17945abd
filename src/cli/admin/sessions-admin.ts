import type { IndexedSession } from '../../application/ports/session-index';
import { liveSessionsOf } from '../../application/account/list-account-sessions';
import { RevokeUserSessionsUseCase } from '../../application/sessions/revoke-user-sessions';
import { RedisRevokedSessions } from '../../adapters/state/redis/redis-revoked-sessions';
import { LOAD_TIMEOUT_MS, openAdminStore } from './admin-store';
import { TOKENS } from '../../composition/tokens';

/** What `portcullis sessions` works with: the gateway's own store, opened from the same settings. */
export interface SessionsAdmin {
  list(username: string): Promise<IndexedSession[]>;
  /** Ends one session (`id`) or all of the account's; resolves how many. Throws an Error for the operator. */
  revoke(username: string, id?: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * Opens the store the gateway configured by `env` uses (the embedded file, PostgreSQL or Redis)
 * for `portcullis sessions`. On PostgreSQL and Redis a revocation made here reaches every running
 * gateway at once (NOTIFY / publish). The embedded file is locked by a running gateway: there the
 * command works while the gateway is stopped, and the gateway loads the revocations when it starts.
 */
export async function openSessionsAdmin(env: NodeJS.ProcessEnv, dataDir: string | null): Promise<SessionsAdmin> {
  const { picked, close } = await openAdminStore(
    env,
    dataDir,
    'sessions live only in the running gateway',
    'Stop the gateway first, or use the account page ("Sign out everywhere")',
    (c) => ({
      index: c.get(TOKENS.SessionIndex),
      // The store itself (started and checked here); `ending` is the same, also telling the apps of each ended session (issue 35).
      revoked: c.get(TOKENS.RevokedSessionsStore),
      ending: c.get(TOKENS.RevokedSessions),
      audit: c.get(TOKENS.AuditLog),
    }),
  );
  const { index, revoked } = picked;
  try {
    if (revoked instanceof RedisRevokedSessions) revoked.start();
    // Listing filters out revoked sessions: wait until the shared revocations are loaded.
    const deadline = Date.now() + LOAD_TIMEOUT_MS;
    for (;;) {
      try {
        await revoked.isRevoked('');
        break;
      } catch (e) {
        if (Date.now() > deadline) throw new Error('the store did not answer in time', { cause: e });
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } catch (e) {
    await close();
    throw e;
  }
  const revoke = new RevokeUserSessionsUseCase(index, picked.ending, picked.audit);
  return {
    list: (username) => liveSessionsOf(username, index, revoked),
    async revoke(username, id) {
      const result = await revoke.execute({ username, id });
      if (!result.ok)
        throw new Error(
          result.error.code === 'session_not_found' ? `${username} has no live session ${id}` : 'the store is unavailable; nothing was confirmed',
        );
      if (revoked instanceof RedisRevokedSessions && revoked.hasUnconfirmed()) throw new Error('Redis did not confirm the revocations; run the command again');
      return result.value.revoked;
    },
    close,
  };
}
