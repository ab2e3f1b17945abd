import { AesGcmSessionSealer } from '../adapters/crypto/aes-gcm-session-sealer';
import { NativePasswordHasher } from '../adapters/crypto/native-password-hasher';
import { HmacCredentialFingerprints } from '../adapters/crypto/hmac-credential-fingerprints';
import { GatewayLifecycle } from '../adapters/system/lifecycle';
import { LoggerAuditLog, type Logger } from '../adapters/system/logger';
import { lazyModule } from '../adapters/system/lazy-module';
import { withTrail, type TrailAuditLog } from '../adapters/system/trail-audit-log';
import { PinoLogger } from '../adapters/system/pino-logger';
import { RandomIdGenerator } from '../adapters/system/random-id-generator';
import { SystemClock } from '../adapters/system/system-clock';
import { entriesDecoy } from '../domain/users-list';
import type { AuditLog } from '../application/ports/audit-log';
import type { Clock } from '../application/ports/clock';
import type { CredentialFingerprints } from '../application/ports/credential-fingerprints';
import type { IdGenerator } from '../application/ports/id-generator';
import type { PasswordHasher } from '../application/ports/password-hasher';
import type { SessionSealer } from '../application/ports/session-sealer';
import type { ReadinessCheck } from '../application/readiness/readiness-check';
import { CheckReadinessUseCase } from '../application/readiness/check-readiness';
import type { GatewaySettings } from '../application/settings';
import { lockPolicy } from '../domain/login-failures';
import type { TypedContainer } from './binding';
import type { Config } from '../config/load';
import { gatewayDomainsOf, protectedDomainOfAppUrl } from './cookie-domain';
import type { DatabaseHolder, MetricsHolder, PostgresHolder, RedisHolder } from './holders';
import { optionalModules, terminalLogStream } from './optional-modules';
import { Resources } from './resources';
import { TOKENS } from './tokens';

/** The Prometheus metrics' code loads with METRICS_PORT, like prom-client itself (ADR 0015). */
const prometheusMetrics = lazyModule(() => require('../adapters/metrics/prometheus-metrics') as typeof import('../adapters/metrics/prometheus-metrics'));

/** How long one readiness probe of a store may take before it counts as down. */
const READINESS_TIMEOUT_MS = 1000;

export type CoreConfig = Pick<
  Config,
  | 'appUrl'
  | 'appUrls'
  | 'secret'
  | 'logLevel'
  | 'metricsPort'
  | 'sessionExpirySeconds'
  | 'sessionIdleTimeoutSeconds'
  | 'sessionMaxLifetimeSeconds'
  | 'rememberMeExpirySeconds'
  | 'loginMaxRetries'
  | 'loginTimeoutSeconds'
  | 'basicCacheTtlSeconds'
  | 'users'
  | 'usersFile'
>;

/**
 * What every feature uses: the settings, log, clock, ids, metrics and audit, what the gateway
 * starts, probes and closes (Resources, readiness), the password hasher and the session sealer.
 */
export function bindCore(c: TypedContainer, config: CoreConfig): void {
  const bind = c.bind.bind(c) as TypedContainer['bind'];
  const domain = protectedDomainOfAppUrl(config.appUrl);
  bind(TOKENS.Settings, (): GatewaySettings => ({
    sessionLifetimeMs: config.sessionExpirySeconds * 1000,
    idleTimeoutMs: config.sessionIdleTimeoutSeconds * 1000,
    maxLifetimeMs: config.sessionMaxLifetimeSeconds * 1000,
    rememberMeLifetimeMs: config.rememberMeExpirySeconds * 1000,
    lock: lockPolicy(config.loginMaxRetries, config.loginTimeoutSeconds),
    protectedDomain: domain,
    ...(config.appUrls.length > 1 ? { secondaryDomains: gatewayDomainsOf(config.appUrls.slice(1)).map((g) => g.domain) } : {}),
    basicCacheTtlMs: config.basicCacheTtlSeconds * 1000,
  }));
  bind(TOKENS.Logger, (): Logger => new PinoLogger({ level: config.logLevel, destination: terminalLogStream() }));
  bind(TOKENS.Clock, (): Clock => new SystemClock());
  bind(TOKENS.IdGenerator, (): IdGenerator => new RandomIdGenerator());
  bind(
    TOKENS.Resources,
    (lifecycle: GatewayLifecycle) => {
      const resources = new Resources();
      // Draining (shutdown) turns readiness 503 before the servers stop accepting: the gateway's own check leads the list.
      resources.ready(lifecycle);
      return resources;
    },
    [TOKENS.Lifecycle],
  );
  bind(
    TOKENS.Metrics,
    (redis: RedisHolder, data: DatabaseHolder, pg: PostgresHolder): MetricsHolder => ({
      metrics:
        config.metricsPort === null
          ? null
          : new (prometheusMetrics().PrometheusMetrics)(optionalModules.promClient(), [
              ...(redis.connection === null ? [] : [redis.connection]),
              ...(data.database === null ? [] : [data.database]),
              ...(pg.postgres === null ? [] : [pg.postgres]),
            ]),
    }),
    [TOKENS.Redis, TOKENS.Database, TOKENS.Postgres],
  );
  bind(
    TOKENS.AuditLog,
    (logger: Logger, m: MetricsHolder, trail: { readonly recorder: TrailAuditLog | null }): AuditLog => {
      const audit = new LoggerAuditLog(logger);
      // The log line and the metrics at once; the durable trail (issue 36) queues and writes in batches.
      return withTrail(m.metrics === null ? audit : new (prometheusMetrics().MetricsAuditLog)(audit, m.metrics), trail.recorder);
    },
    [TOKENS.Logger, TOKENS.Metrics, TOKENS.AuditTrailRecorder],
  );
  bind(TOKENS.Lifecycle, () => new GatewayLifecycle());
  // Every part that gates readiness registered itself with Resources when it was built.
  bind(TOKENS.ReadinessChecks, (resources: Resources): readonly ReadinessCheck[] => resources.readiness, [TOKENS.Resources]);
  bind(TOKENS.CheckReadinessUseCase, (checks: readonly ReadinessCheck[]) => new CheckReadinessUseCase(checks, READINESS_TIMEOUT_MS), [TOKENS.ReadinessChecks]);
  bind(
    TOKENS.PasswordHasher,
    (resources: Resources): PasswordHasher => {
      // The decoy for unknown names costs what most configured hashes of the costlier kind cost, so they answer in the same time.
      const hasher = new NativePasswordHasher({
        decoy: entriesDecoy([...config.users, ...(config.usersFile?.entries ?? [])]),
        argon2: optionalModules.argon2,
      });
      // Made at start, off the event loop, so the first unknown name does not pay for it (and stand out).
      resources.onStart(() => void hasher.verifyDecoy('').catch(() => undefined));
      return hasher;
    },
    [TOKENS.Resources],
  );
  bind(TOKENS.SessionSealer, (): SessionSealer => new AesGcmSessionSealer(config.secret));
  bind(TOKENS.CredentialFingerprints, (): CredentialFingerprints => new HmacCredentialFingerprints(config.secret));
}
