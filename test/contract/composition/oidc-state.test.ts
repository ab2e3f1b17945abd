import * as ioredis from 'ioredis';
import * as nodePostgres from 'pg';
import { AesGcmSigningKeys } from '../../../src/adapters/crypto/aes-gcm-signing-keys';
import { HmacOidcArtifacts } from '../../../src/adapters/crypto/hmac-oidc-artifacts';
import { PostgresDatabase } from '../../../src/adapters/state/postgres/postgres-database';
import { RedisConnection } from '../../../src/adapters/state/redis/redis-connection';
import { SqliteDatabase } from '../../../src/adapters/state/sqlite/sqlite-database';
import { InMemoryOidcArtifacts } from '../../../src/adapters/state/memory/in-memory-oidc-artifacts';
import { PostgresOidcArtifacts } from '../../../src/adapters/state/postgres/postgres-oidc-artifacts';
import { RedisOidcArtifacts } from '../../../src/adapters/state/redis/redis-oidc-artifacts';
import { SqliteOidcArtifacts } from '../../../src/adapters/state/sqlite/sqlite-oidc-artifacts';
import { buildOidcState } from '../../../src/composition/oidc-state';
import { storesOf, type StateHolders } from '../../../src/composition/state';
import { Resources } from '../../../src/composition/resources';
import { optionalModules } from '../../../src/composition/optional-modules';
import { FixedClock } from '../../support/fakes';
import { silentLogger } from '../../support/loggers';

const clock = new FixedClock();
const secret = 'a-test-secret-of-at-least-thirty-two-characters';
/** The store under the HMAC wrapper that keeps token values out of it. */
const inner = (artifacts: unknown): unknown => {
  expect(artifacts).toBeInstanceOf(HmacOidcArtifacts);
  return (artifacts as { store: unknown }).store;
};
const none = { redis: { connection: null }, database: { database: null }, postgres: { postgres: null } };
const redis = (): RedisConnection =>
  new RedisConnection({ ioredis, target: { kind: 'standalone', host: '127.0.0.1', port: 1, tls: false, db: 0 }, prefix: 'p:', logger: silentLogger });
const postgres = (): PostgresDatabase =>
  new PostgresDatabase({ pg: nodePostgres, target: { url: 'postgres://u:p@127.0.0.1:1/db', ssl: null, ca: null }, logger: silentLogger, clock });
const sqlite = (): SqliteDatabase =>
  SqliteDatabase.create('/nonexistent-never-opened', { driver: optionalModules.betterSqlite3(), logger: silentLogger, clock });

describe('buildOidcState picks the store like the rest of the state', () => {
  const build = (holders: Partial<StateHolders>) =>
    buildOidcState(storesOf({ ...none, ...holders }, { clock, logger: silentLogger, registry: new Resources() }, 'records'), secret);

  it('keeps it in memory when there is no data directory, Redis or PostgreSQL', () => {
    const state = build({});
    expect(state.store).toBe('memory');
    expect(inner(state.artifacts)).toBeInstanceOf(InMemoryOidcArtifacts);
    expect(state.signingKeys).toBeInstanceOf(AesGcmSigningKeys);
  });

  it('uses the embedded database by default (a data directory)', () => {
    const state = build({ database: { database: sqlite() } });
    expect(state.store).toBe('sqlite');
    expect(inner(state.artifacts)).toBeInstanceOf(SqliteOidcArtifacts);
    expect(state.signingKeys).toBeInstanceOf(AesGcmSigningKeys);
  });

  it('uses Redis with REDIS_URL', async () => {
    const connection = redis();
    const state = build({ redis: { connection } });
    expect(state.store).toBe('redis');
    expect(inner(state.artifacts)).toBeInstanceOf(RedisOidcArtifacts);
    await connection.close();
  });

  it('uses PostgreSQL with DATABASE_URL, even when Redis holds the short-lived state', async () => {
    const connection = redis();
    const pg = postgres();
    const state = build({ redis: { connection }, postgres: { postgres: pg } });
    expect(state.store).toBe('postgres');
    expect(inner(state.artifacts)).toBeInstanceOf(PostgresOidcArtifacts);
    expect(state.signingKeys).toBeInstanceOf(AesGcmSigningKeys);
    await connection.close();
    await pg.close();
  });
});
