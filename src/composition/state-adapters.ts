import { lazyModule } from '../adapters/system/lazy-module';

/**
 * The Redis and PostgreSQL adapters of the state stores (the connections and every store built on
 * them), loaded only when REDIS_URL or DATABASE_URL is set, like ioredis and pg themselves (ADR
 * 0015): the embedded (DATA_DIR) and in-memory configurations never carry their code. Composition
 * takes a class from here only in the branch where its connection exists, so a check such as
 * `revoked instanceof redisState().RedisRevokedSessions` is asked only when Redis is configured.
 */
export const redisState = lazyModule(() => require('./redis-state') as typeof import('./redis-state'));
export const postgresState = lazyModule(() => require('./postgres-state') as typeof import('./postgres-state'));
