import type { StateStores, StoreDeps } from '../adapters/state/state-stores';
import { memoryStores } from '../adapters/state/memory/memory-state';
import { SqliteDatabase } from '../adapters/state/sqlite/sqlite-database';
import { sqliteStores } from '../adapters/state/sqlite/sqlite-state';
import type { Logger } from '../adapters/system/logger';
import { lazyModule } from '../adapters/system/lazy-module';
import type { Clock } from '../application/ports/clock';
import type { TypedContainer } from './binding';
import type { Config } from '../config/load';
import type { DatabaseHolder, PostgresHolder, RedisHolder } from './holders';
import { optionalModules } from './optional-modules';
import type { Resources } from './resources';
import { TOKENS, type Token } from './tokens';

/**
 * The Redis and PostgreSQL backends (their connections and every store built on them) load only
 * when REDIS_URL or DATABASE_URL is set, like ioredis and pg themselves (ADR 0015): the embedded
 * (DATA_DIR) and in-memory configurations never carry their code.
 */
export const redisBackend = lazyModule(() => require('../adapters/state/redis/redis-state') as typeof import('../adapters/state/redis/redis-state'));
export const postgresBackend = lazyModule(
  () => require('../adapters/state/postgres/postgres-state') as typeof import('../adapters/state/postgres/postgres-state'),
);

/**
 * Which backend wins when both Redis and PostgreSQL are configured. `short-lived`: Redis, else
 * PostgreSQL (login counts, used steps and flows, hand-off codes, passkey links and records).
 * `records`: PostgreSQL whenever it is configured, Redis or not: revocations and what replicates
 * like them (the session index, enrolled TOTP secrets, the OIDC provider's grants and keys) must
 * survive a Redis flush or a restart without persistence (ADR 0019). Then the embedded file
 * (DATA_DIR, opened only when neither is set), else this process's memory.
 */
export type StoreOrder = 'short-lived' | 'records';

/** The three optional backends, `null` inside each holder when not configured. */
export interface StateHolders {
  readonly redis: RedisHolder;
  readonly database: DatabaseHolder;
  readonly postgres: PostgresHolder;
}

/** The stores of the backend `order` chooses among the configured ones. */
export function storesOf(holders: StateHolders, deps: StoreDeps, order: StoreOrder): StateStores {
  const { connection } = holders.redis;
  const { postgres } = holders.postgres;
  const { database } = holders.database;
  if (order === 'records' && postgres !== null) return postgresBackend().postgresStores(postgres, deps);
  if (connection !== null) return redisBackend().redisStores(connection, deps);
  if (postgres !== null) return postgresBackend().postgresStores(postgres, deps);
  if (database !== null) return sqliteStores(database, deps);
  return memoryStores(deps);
}

/** Binds `token` to a store of the backend chosen for `order` (see {@link StoreOrder}). */
export function bindStore<T>(c: TypedContainer, token: Token<T>, order: StoreOrder, pick: (stores: StateStores) => NoInfer<T>): void {
  c.bind(token, pick, [order === 'records' ? TOKENS.RecordStores : TOKENS.ShortLivedStores]);
}

/**
 * The backends' connections (each registering its start, readiness probe and close with
 * Resources) and the two bundles of stores chosen from them.
 */
export function bindState(c: TypedContainer, config: Pick<Config, 'redis' | 'redisPrefix' | 'database' | 'dataDir'>): void {
  const bind = c.bind.bind(c) as TypedContainer['bind'];
  bind(
    TOKENS.Redis,
    (logger: Logger, resources: Resources): RedisHolder => {
      if (config.redis === null) return { connection: null };
      const connection = new (redisBackend().RedisConnection)({ ioredis: optionalModules.ioredis(), target: config.redis, prefix: config.redisPrefix, logger });
      // Connected by gateway.start(), not by the constructor: a command before it connects on demand.
      resources.onStart(() => connection.start());
      resources.ready(connection);
      resources.add(() => connection.close());
      return { connection };
    },
    [TOKENS.Logger, TOKENS.Resources],
  );
  bind(
    TOKENS.Database,
    (logger: Logger, clock: Clock, resources: Resources): DatabaseHolder => {
      if (config.redis !== null || config.database !== null || config.dataDir === null) return { database: null };
      const database = SqliteDatabase.create(config.dataDir, { driver: optionalModules.betterSqlite3(), logger, clock });
      // Opened by gateway.start(), not when resolved: building a gateway creates no file (DatabaseStartError rejects start()).
      resources.onStart(() => database.start());
      // Registered first, closed last: requests drained before this commit their writes first.
      resources.add(() => database.close());
      return { database };
    },
    [TOKENS.Logger, TOKENS.Clock, TOKENS.Resources],
  );
  bind(
    TOKENS.Postgres,
    (logger: Logger, clock: Clock, resources: Resources): PostgresHolder => {
      if (config.database === null) return { postgres: null };
      const postgres = new (postgresBackend().PostgresDatabase)({ pg: optionalModules.pg(), target: config.database, logger, clock });
      // Schema checked and updated, change feed started; resolves when unreachable too and keeps trying.
      resources.onStart(() => postgres.start());
      resources.ready(postgres);
      resources.add(() => postgres.close());
      return { postgres };
    },
    [TOKENS.Logger, TOKENS.Clock, TOKENS.Resources],
  );
  const bundle =
    (order: StoreOrder) =>
    (redis: RedisHolder, database: DatabaseHolder, postgres: PostgresHolder, clock: Clock, logger: Logger, resources: Resources): StateStores =>
      storesOf({ redis, database, postgres }, { clock, logger, registry: resources }, order);
  const deps = [TOKENS.Redis, TOKENS.Database, TOKENS.Postgres, TOKENS.Clock, TOKENS.Logger, TOKENS.Resources] as const;
  bind(TOKENS.RecordStores, bundle('records'), deps);
  bind(TOKENS.ShortLivedStores, bundle('short-lived'), deps);
}
