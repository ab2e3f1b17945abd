import type { PostgresDatabase } from '../adapters/state/postgres/postgres-database';
import type { RedisConnection } from '../adapters/state/redis/redis-connection';
import type { SqliteDatabase } from '../adapters/state/sqlite/sqlite-database';
import type { Resolved, TypedContainer } from './binding';
import type { DatabaseHolder, PostgresHolder, RedisHolder } from './holders';
import { postgresState, redisState } from './state-adapters';
import { TOKENS, type Token } from './tokens';

/** The Redis adapters, handed to a constructor only when Redis is the chosen store (loaded then). */
export type RedisStateAdapters = ReturnType<typeof redisState>;
/** The PostgreSQL adapters, handed to a constructor only when PostgreSQL is the chosen store (loaded then). */
export type PostgresStateAdapters = ReturnType<typeof postgresState>;

/**
 * How to build one port's adapter on each store. Only the chosen one is called, and the Redis and
 * PostgreSQL ones receive their adapters' module as an argument, so a gateway on the embedded file
 * or in memory never loads their code (ADR 0015; the optional-modules test pins it).
 */
export interface StoreConstructors<T> {
  readonly redis: (connection: RedisConnection, adapters: RedisStateAdapters) => T;
  readonly postgres: (database: PostgresDatabase, adapters: PostgresStateAdapters) => T;
  readonly sqlite: (database: SqliteDatabase) => T;
  readonly memory: () => T;
  /** Laid over whichever store was chosen (a keyed hash or a seal that keeps secrets out of every store). */
  readonly wrap?: (store: T) => T;
}

/**
 * Which store wins when both Redis and PostgreSQL are configured. `short-lived`: Redis, else
 * PostgreSQL (login counts, used steps and flows, hand-off codes, passkey links and records).
 * `records`: PostgreSQL whenever it is configured, Redis or not: revocations and what replicates
 * like them (the session index, enrolled TOTP secrets, the OIDC provider's grants and keys) must
 * survive a Redis flush or a restart without persistence. Then the embedded file (DATA_DIR, which
 * composition opens only when neither is set), else this process's memory.
 */
export type StoreOrder = 'short-lived' | 'records';

/** The three optional stores, `null` inside each holder when not configured. */
export interface StateHolders {
  readonly redis: RedisHolder;
  readonly database: DatabaseHolder;
  readonly postgres: PostgresHolder;
}

/** Builds the adapter of the store `order` chooses among the configured ones. */
export function durableStoreOf<T>(holders: StateHolders, constructors: StoreConstructors<T>, order: StoreOrder = 'short-lived'): T {
  const { connection } = holders.redis;
  const { postgres } = holders.postgres;
  const { database } = holders.database;
  const store =
    order === 'records' && postgres !== null
      ? constructors.postgres(postgres, postgresState())
      : connection !== null
        ? constructors.redis(connection, redisState())
        : postgres !== null
          ? constructors.postgres(postgres, postgresState())
          : database !== null
            ? constructors.sqlite(database)
            : constructors.memory();
  return constructors.wrap === undefined ? store : constructors.wrap(store);
}

/**
 * Binds `token` to the adapter of the chosen store (see {@link StoreOrder}). `constructors` gets
 * the resolved `deps` in order, type-checked like {@link TypedContainer.bind}'s factory; the
 * store holders are added to the dependencies here. Like every factory, it only constructs: a
 * store that starts something registers that with `Resources.onStart`.
 */
// `any` in the constraint only, as in TypedContainer.bind: the token brand is invariant.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function bindDurable<T, const D extends readonly Token<any>[] = []>(
  c: TypedContainer,
  token: Token<T>,
  deps: D,
  constructors: (...deps: Resolved<D>) => StoreConstructors<NoInfer<T>>,
  order: StoreOrder = 'short-lived',
): void {
  const holders = [TOKENS.Redis, TOKENS.Database, TOKENS.Postgres] as const;
  const factory = (redis: RedisHolder, database: DatabaseHolder, postgres: PostgresHolder, ...rest: Resolved<D>): T =>
    durableStoreOf({ redis, database, postgres }, constructors(...rest), order);
  // The tuple [holders..., ...deps] is checked above, piece by piece; TypeScript cannot follow the spread of a generic tuple.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (c.bind as (token: Token<T>, factory: (...d: any[]) => T, deps: readonly Token<any>[]) => void).call(c, token, factory, [...holders, ...deps]);
}
