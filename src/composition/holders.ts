import type { OidcHttp } from '../adapters/oidc/oidc-provider-http';
import type { PrometheusMetrics } from '../adapters/metrics/prometheus-metrics';
import type { PostgresDatabase } from '../adapters/state/postgres/postgres-database';
import type { RedisConnection } from '../adapters/state/redis/redis-connection';
import type { SqliteDatabase } from '../adapters/state/sqlite/sqlite-database';
import type { JwtAuthenticator } from '../application/tokens/jwt-authenticator';

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
/**
 * PostgreSQL, when DATABASE_URL is set: the durable records of several replicas (all the state,
 * or with Redis as well the revocations while Redis keeps the short-lived state). See
 * docs/operations.md#three-deployment-shapes.
 */
export interface PostgresHolder {
  readonly postgres: PostgresDatabase | null;
}
/** Workload JWTs (issue 32), when at least one issuer is configured (`JWT_ISSUERS_<ID>_ISSUER`). */
export interface JwtHolder {
  readonly authenticator: JwtAuthenticator | null;
}
export interface MetricsHolder {
  readonly metrics: PrometheusMetrics | null;
}

/**
 * The provider's HTTP face; without clients only the JWKS that signed assertions need (published
 * while an access rule asks for them; ADR 0035). Null is kept for wirings without either.
 */
export interface OidcHttpHolder {
  readonly oidc: OidcHttp | null;
}
