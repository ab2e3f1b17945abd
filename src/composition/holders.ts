import type { PrometheusMetrics } from '../adapters/metrics/prometheus-metrics';
import type { RedisConnection } from '../adapters/redis/redis-connection';
import type { SqliteDatabase } from '../adapters/sqlite/sqlite-database';

/** Holders for optional parts: a factory must return a value, so "not configured" is `null` inside. */
export interface RedisHolder {
  readonly connection: RedisConnection | null;
}
/**
 * The embedded database, when this gateway keeps its state on disk: no Redis (which is shared by
 * replicas and so wins) and a data directory.
 */
export interface DatabaseHolder {
  readonly database: SqliteDatabase | null;
}
export interface MetricsHolder {
  readonly metrics: PrometheusMetrics | null;
}
