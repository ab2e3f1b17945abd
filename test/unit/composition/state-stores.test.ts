import bcrypt from 'bcrypt';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InMemoryEnrolledTotpSecrets } from '../../../src/adapters/state/memory/in-memory-enrolled-totp-secrets';
import { InMemoryHandoffCodes } from '../../../src/adapters/state/memory/in-memory-handoff-codes';
import { InMemoryLoginAttempts } from '../../../src/adapters/state/memory/in-memory-login-attempts';
import { InMemoryOidcArtifacts } from '../../../src/adapters/state/memory/in-memory-oidc-artifacts';
import { InMemoryPasskeyCredentials } from '../../../src/adapters/state/memory/in-memory-passkey-credentials';
import { InMemoryPasskeyEnrolmentLinks } from '../../../src/adapters/state/memory/in-memory-passkey-enrolment-links';
import { InMemoryPasskeySecondFactorChoices } from '../../../src/adapters/state/memory/in-memory-passkey-second-factor-choices';
import { InMemoryRevokedSessions } from '../../../src/adapters/state/memory/in-memory-revoked-sessions';
import { InMemorySessionIndex } from '../../../src/adapters/state/memory/in-memory-session-index';
import { InMemorySigningKeys } from '../../../src/adapters/state/memory/in-memory-signing-keys';
import { InMemoryUsedOAuthFlows } from '../../../src/adapters/state/memory/in-memory-used-oauth-flows';
import { InMemoryUsedTotpSteps } from '../../../src/adapters/state/memory/in-memory-used-totp-steps';
import { PostgresEnrolledTotpSecrets } from '../../../src/adapters/state/postgres/postgres-enrolled-totp-secrets';
import { PostgresHandoffCodes } from '../../../src/adapters/state/postgres/postgres-handoff-codes';
import { PostgresLoginAttempts } from '../../../src/adapters/state/postgres/postgres-login-attempts';
import { PostgresOidcArtifacts } from '../../../src/adapters/state/postgres/postgres-oidc-artifacts';
import { PostgresPasskeyCredentials } from '../../../src/adapters/state/postgres/postgres-passkey-credentials';
import { PostgresPasskeyEnrolmentLinks } from '../../../src/adapters/state/postgres/postgres-passkey-enrolment-links';
import { PostgresPasskeySecondFactorChoices } from '../../../src/adapters/state/postgres/postgres-passkey-second-factor-choices';
import { PostgresRevokedSessions } from '../../../src/adapters/state/postgres/postgres-revoked-sessions';
import { PostgresSessionIndex } from '../../../src/adapters/state/postgres/postgres-session-index';
import { PostgresSigningKeys } from '../../../src/adapters/state/postgres/postgres-signing-keys';
import { PostgresUsedOAuthFlows } from '../../../src/adapters/state/postgres/postgres-used-oauth-flows';
import { PostgresUsedTotpSteps } from '../../../src/adapters/state/postgres/postgres-used-totp-steps';
import { RedisEnrolledTotpSecrets } from '../../../src/adapters/state/redis/redis-enrolled-totp-secrets';
import { RedisHandoffCodes } from '../../../src/adapters/state/redis/redis-handoff-codes';
import { RedisLoginAttempts } from '../../../src/adapters/state/redis/redis-login-attempts';
import { RedisOidcArtifacts } from '../../../src/adapters/state/redis/redis-oidc-artifacts';
import { RedisPasskeyCredentials } from '../../../src/adapters/state/redis/redis-passkey-credentials';
import { RedisPasskeyEnrolmentLinks } from '../../../src/adapters/state/redis/redis-passkey-enrolment-links';
import { RedisPasskeySecondFactorChoices } from '../../../src/adapters/state/redis/redis-passkey-second-factor-choices';
import { RedisRevokedSessions } from '../../../src/adapters/state/redis/redis-revoked-sessions';
import { RedisSessionIndex } from '../../../src/adapters/state/redis/redis-session-index';
import { RedisSigningKeys } from '../../../src/adapters/state/redis/redis-signing-keys';
import { RedisUsedOAuthFlows } from '../../../src/adapters/state/redis/redis-used-oauth-flows';
import { RedisUsedTotpSteps } from '../../../src/adapters/state/redis/redis-used-totp-steps';
import { SqliteEnrolledTotpSecrets } from '../../../src/adapters/state/sqlite/sqlite-enrolled-totp-secrets';
import { SqliteHandoffCodes } from '../../../src/adapters/state/sqlite/sqlite-handoff-codes';
import { SqliteLoginAttempts } from '../../../src/adapters/state/sqlite/sqlite-login-attempts';
import { SqliteOidcArtifacts } from '../../../src/adapters/state/sqlite/sqlite-oidc-artifacts';
import { SqlitePasskeyCredentials } from '../../../src/adapters/state/sqlite/sqlite-passkey-credentials';
import { SqlitePasskeyEnrolmentLinks } from '../../../src/adapters/state/sqlite/sqlite-passkey-enrolment-links';
import { SqlitePasskeySecondFactorChoices } from '../../../src/adapters/state/sqlite/sqlite-passkey-second-factor-choices';
import { SqliteRevokedSessions } from '../../../src/adapters/state/sqlite/sqlite-revoked-sessions';
import { SqliteSessionIndex } from '../../../src/adapters/state/sqlite/sqlite-session-index';
import { SqliteSigningKeys } from '../../../src/adapters/state/sqlite/sqlite-signing-keys';
import { SqliteUsedOAuthFlows } from '../../../src/adapters/state/sqlite/sqlite-used-oauth-flows';
import { SqliteUsedTotpSteps } from '../../../src/adapters/state/sqlite/sqlite-used-totp-steps';
import { loadConfig } from '../../../src/composition/config';
import type { Config } from '../../../src/config/load';
import { buildContainer } from '../../../src/composition/container';
import type { Wiring } from '../../../src/composition/binding';
import { TOKENS } from '../../../src/composition/tokens';
import { tempDataDir } from '../../support/data-dir';

function configOf(env: Record<string, string>): Config {
  const loaded = loadConfig({
    env: {
      APP_URL: 'https://auth.example.test',
      SECRET: 'state-stores-test-secret-0123456789-abcdef',
      USERS: `alice:${bcrypt.hashSync('pw', 4)}`,
      LOG_LEVEL: 'silent',
      ...env,
    },
  });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  return loaded.config;
}

/** The store under a wrapper that keeps secrets out of it (HMAC of the key, sealed values). */
const inner = (wrapped: unknown): unknown => (wrapped as { store: unknown }).store;

type Store = 'memory' | 'sqlite' | 'redis' | 'postgres';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Constructor = abstract new (...args: any[]) => unknown;

interface Port {
  readonly name: string;
  readonly get: (w: Wiring) => unknown;
  readonly adapters: Record<Store, Constructor>;
}

/** One port: how to get it from the container, and its adapter on memory, the embedded file, Redis and PostgreSQL. */
const port = (name: string, get: (w: Wiring) => unknown, [memory, sqlite, redis, postgres]: Constructor[]): Port => ({
  name,
  get,
  adapters: { memory, sqlite, redis, postgres },
});

/** Every state port the container binds, the store each one is in, by store. */
const PORTS: readonly Port[] = [
  port('LoginAttempts', (w) => w.get(TOKENS.LoginAttempts), [InMemoryLoginAttempts, SqliteLoginAttempts, RedisLoginAttempts, PostgresLoginAttempts]),
  port('UsedTotpSteps', (w) => w.get(TOKENS.UsedTotpSteps), [InMemoryUsedTotpSteps, SqliteUsedTotpSteps, RedisUsedTotpSteps, PostgresUsedTotpSteps]),
  port('UsedOAuthFlows', (w) => w.get(TOKENS.UsedOAuthFlows), [InMemoryUsedOAuthFlows, SqliteUsedOAuthFlows, RedisUsedOAuthFlows, PostgresUsedOAuthFlows]),
  port('HandoffCodes', (w) => w.get(TOKENS.HandoffCodes), [InMemoryHandoffCodes, SqliteHandoffCodes, RedisHandoffCodes, PostgresHandoffCodes]),
  port('PasskeyCredentials', (w) => w.get(TOKENS.PasskeyCredentials), [
    InMemoryPasskeyCredentials,
    SqlitePasskeyCredentials,
    RedisPasskeyCredentials,
    PostgresPasskeyCredentials,
  ]),
  port('PasskeyEnrolmentLinks (under its HMAC)', (w) => inner(w.get(TOKENS.PasskeyEnrolmentLinks)), [
    InMemoryPasskeyEnrolmentLinks,
    SqlitePasskeyEnrolmentLinks,
    RedisPasskeyEnrolmentLinks,
    PostgresPasskeyEnrolmentLinks,
  ]),
  port('PasskeySecondFactorChoices', (w) => w.get(TOKENS.PasskeySecondFactorChoices), [
    InMemoryPasskeySecondFactorChoices,
    SqlitePasskeySecondFactorChoices,
    RedisPasskeySecondFactorChoices,
    PostgresPasskeySecondFactorChoices,
  ]),
  port('RevokedSessions', (w) => w.get(TOKENS.RevokedSessions), [
    InMemoryRevokedSessions,
    SqliteRevokedSessions,
    RedisRevokedSessions,
    PostgresRevokedSessions,
  ]),
  port('SessionIndex', (w) => w.get(TOKENS.SessionIndex), [InMemorySessionIndex, SqliteSessionIndex, RedisSessionIndex, PostgresSessionIndex]),
  port('EnrolledTotpSecrets', (w) => w.get(TOKENS.EnrolledTotpSecrets), [
    InMemoryEnrolledTotpSecrets,
    SqliteEnrolledTotpSecrets,
    RedisEnrolledTotpSecrets,
    PostgresEnrolledTotpSecrets,
  ]),
  port('OidcArtifacts (under its HMAC)', (w) => inner(w.get(TOKENS.OidcArtifacts)), [
    InMemoryOidcArtifacts,
    SqliteOidcArtifacts,
    RedisOidcArtifacts,
    PostgresOidcArtifacts,
  ]),
  port('SigningKeys (sealed)', (w) => inner(w.get(TOKENS.SigningKeys)), [InMemorySigningKeys, SqliteSigningKeys, RedisSigningKeys, PostgresSigningKeys]),
];

/** Short-lived state goes to Redis when it is there; durable records to PostgreSQL whenever it is configured. */
const DURABLE_RECORDS = new Set(['RevokedSessions', 'SessionIndex', 'EnrolledTotpSecrets', 'OidcArtifacts (under its HMAC)', 'SigningKeys (sealed)']);

const REDIS_URL = 'redis://127.0.0.1:1';
const DATABASE_URL = 'postgres://portcullis:pw@127.0.0.1:1/portcullis';

/** Builds a container for `env` (a fresh DATA_DIR each time), hands it to `check`, then closes what it opened. */
async function withContainer(env: Record<string, string>, check: (w: Wiring, dataDir: string) => void): Promise<void> {
  const data = tempDataDir('portcullis-state-stores');
  const w = buildContainer(configOf({ DATA_DIR: data.dir, ...env }));
  try {
    check(w, data.dir);
  } finally {
    w.get(TOKENS.Database).database?.close();
    await w.get(TOKENS.Redis).connection?.close();
    await w.get(TOKENS.Postgres).postgres?.close();
    data.remove();
  }
}

describe('the state stores the container binds', () => {
  it('keep every port in memory without DATA_DIR, REDIS_URL or DATABASE_URL', () => {
    const w = buildContainer(configOf({}));
    for (const port of PORTS) expect([port.name, port.get(w)]).toEqual([port.name, expect.any(port.adapters.memory)]);
  });

  it('keep every port in the embedded database with DATA_DIR', async () => {
    await withContainer({}, (w) => {
      for (const port of PORTS) expect([port.name, port.get(w)]).toEqual([port.name, expect.any(port.adapters.sqlite)]);
    });
  });

  it('keep every port in Redis with REDIS_URL, and make no file in DATA_DIR', async () => {
    await withContainer({ REDIS_URL }, (w, dir) => {
      for (const port of PORTS) expect([port.name, port.get(w)]).toEqual([port.name, expect.any(port.adapters.redis)]);
      expect(existsSync(join(dir, 'portcullis.db'))).toBe(false);
    });
  });

  it('keep every port in PostgreSQL with DATABASE_URL, and make no file in DATA_DIR', async () => {
    await withContainer({ DATABASE_URL }, (w, dir) => {
      for (const port of PORTS) expect([port.name, port.get(w)]).toEqual([port.name, expect.any(port.adapters.postgres)]);
      expect(existsSync(join(dir, 'portcullis.db'))).toBe(false);
    });
  });

  it('with REDIS_URL and DATABASE_URL keep the durable records in PostgreSQL and the short-lived state in Redis', async () => {
    await withContainer({ REDIS_URL, DATABASE_URL }, (w) => {
      for (const port of PORTS) {
        const store: Store = DURABLE_RECORDS.has(port.name) ? 'postgres' : 'redis';
        expect([port.name, port.get(w)]).toEqual([port.name, expect.any(port.adapters[store])]);
      }
    });
  });
});
