import type { TokenLine, TokensAdmin } from '../commands/tokens-command';
import { RedisRevokedSessions } from '../../adapters/state/redis/redis-revoked-sessions';
import type { AccessTokenRecord } from '../../domain/access-token';
import { isStoreUnavailable } from '../../application/store-unavailable';
import { LOAD_TIMEOUT_MS, openAdminStore } from './admin-store';
import { TOKENS } from '../../composition/tokens';

const lineOf = (r: AccessTokenRecord): TokenLine => ({
  id: r.id,
  name: r.name,
  apps: r.apps,
  createdAt: r.createdAt,
  lastUsedAt: r.lastUsedAt,
  expiresAt: r.expiresAt,
  revokedAt: r.revokedAt,
});

const UNAVAILABLE = 'the store is unavailable; nothing was confirmed';

/**
 * Opens the store the gateway configured by `env` uses, for `portcullis tokens` (issue 32): the
 * same TokenIssuer and TokenRevocation as the account page, on any account of the user store
 * (service accounts included). A token is stored only as a keyed hash (SECRET must be the
 * gateway's). On PostgreSQL and Redis a revocation made here reaches every running gateway at once.
 */
export async function openTokensAdmin(env: NodeJS.ProcessEnv, dataDir: string | null): Promise<TokensAdmin> {
  const { picked, close } = await openAdminStore(
    env,
    dataDir,
    'a token made here would never reach the gateway',
    'Stop the gateway first (or keep the state in PostgreSQL or Redis, where it may run), or use the account page',
    (c, config) => {
      // Checked before the store opens: nothing to close when tokens are off.
      if (!config.tokens) throw new Error('TOKENS is off: turn access tokens on first');
      return { admin: c.get(TOKENS.TokenAdministration), revoked: c.get(TOKENS.RevokedSessionsStore) };
    },
  );
  const { admin, revoked } = picked;
  try {
    if (revoked instanceof RedisRevokedSessions) revoked.start();
  } catch (e) {
    await close();
    throw e;
  }
  const unknown = (login: string): Error => new Error(`no account ${login} in the user store (or it is disabled)`);
  return {
    async create(login, request) {
      const result = await admin.create(login, request).catch(rethrowUnavailable);
      if (!result.ok) {
        switch (result.error.code) {
          case 'unknown_account':
            throw unknown(login);
          case 'invalid_fields':
            throw new Error(`invalid ${result.error.fields.map((f) => FIELD_OPTIONS[f]).join(', ')}: ${FIELD_RULES}`);
          case 'too_many_tokens':
            throw new Error(`${login} holds the most live tokens an account may; revoke one first`);
        }
      }
      return { username: result.value.record.username, token: result.value.token, line: lineOf(result.value.record) };
    },
    async list(login) {
      const result = await admin.list(login).catch(rethrowUnavailable);
      if (!result.ok) throw unknown(login);
      return { username: result.value.username, tokens: result.value.tokens.map(lineOf) };
    },
    async revoke(login, id) {
      const result = await waitForRevocations(() => admin.revoke(login, id)).catch(rethrowUnavailable);
      if (!result.ok) throw result.error.code === 'unknown_account' ? unknown(login) : new Error(`${login} has no live token ${id}`);
      if (revoked instanceof RedisRevokedSessions && revoked.hasUnconfirmed()) throw new Error('Redis did not confirm the revocation; run the command again');
      return result.value.username;
    },
    close,
  };
}

const FIELD_OPTIONS = { name: '--name', apps: '--app', expiresInDays: '--expires' } as const;
const FIELD_RULES = 'a name is 1 to 64 characters of text; each --app names an application of the access rules; --expires is 1 to TOKEN_MAX_LIFETIME days';

/** Retries `work` while the shared revocations are still loading (Redis), up to the load timeout. */
async function waitForRevocations<T>(work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOAD_TIMEOUT_MS;
  for (;;) {
    try {
      return await work();
    } catch (e) {
      if (Date.now() > deadline || !isStoreUnavailable(e)) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function rethrowUnavailable(e: unknown): never {
  if (isStoreUnavailable(e)) throw new Error(UNAVAILABLE, { cause: e });
  throw e;
}
