import type { Counter, Histogram, Registry } from 'prom-client';

import type { AuditEvent, AuditLog } from '../../application/ports/audit-log';
import { FORWARD_AUTH_OUTCOMES, PROXY_NAMES, type ForwardAuthOutcome, type HttpMetrics, type ProxyIndex } from '../http/http-metrics';

/** A store whose health is worth a gauge (Redis today). */
export interface HealthSource {
  readonly name: string;
  isUp(): boolean;
  reconnectCount(): number;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Prometheus metrics in a registry of this gateway's own (two gateways in one process do not
 * mix). Forward-auth counts live in typed arrays (see ForwardAuthStats).
 */
export class PrometheusMetrics implements HttpMetrics {
  readonly registry: Registry;
  private readonly hot = new ForwardAuthStats();
  private readonly logins: Counter<'method' | 'outcome'>;
  private readonly locks: Counter;
  private readonly logouts: Counter<'outcome'>;
  private readonly auditDrops: Counter;
  private readonly requests: Histogram<'route' | 'method' | 'status'>;
  private readonly accountChecks: Counter<'outcome'>;

  /** `promClient` is prom-client, loaded by composition only when metrics are on. */
  constructor(promClient: typeof import('prom-client'), health: readonly HealthSource[] = [], options: { defaultMetrics?: boolean } = {}) {
    const prom = (): typeof import('prom-client') => promClient;
    this.registry = new (prom().Registry)();
    const registers = [this.registry];
    // The hot path only bumps numbers in typed arrays; prom-client reads them when scraped.
    this.registry.registerMetric(this.hot.decisionsMetric() as never);
    this.registry.registerMetric(this.hot.latencyMetric() as never);
    this.logins = new (prom().Counter)({
      name: 'portcullis_logins_total',
      help: 'Login attempts by method and outcome',
      labelNames: ['method', 'outcome'],
      registers,
    });
    this.locks = new (prom().Counter)({ name: 'portcullis_login_locks_total', help: 'Accounts or addresses locked after too many failures', registers });
    this.logouts = new (prom().Counter)({
      name: 'portcullis_oidc_backchannel_logouts_total',
      help: 'Back-channel logout attempts to OpenID Connect apps: delivered, failed (retried) or given up',
      labelNames: ['outcome'],
      registers,
    });
    this.accountChecks = new (prom().Counter)({
      name: 'portcullis_ldap_account_checks_total',
      help: 'Checks of whether the people holding sessions or tokens are still in the LDAP directory: ok, or failed (nothing ended)',
      labelNames: ['outcome'],
      registers,
    });
    this.auditDrops = new (prom().Counter)({
      name: 'portcullis_audit_trail_dropped_total',
      help: 'Audit events not written to the audit trail: the state store was slow or down while too many waited',
      registers,
    });
    this.requests = new (prom().Histogram)({
      name: 'portcullis_http_request_duration_seconds',
      help: 'Time to answer API and UI requests (forward auth has its own histogram)',
      labelNames: ['route', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    if (health.length > 0) {
      new (prom().Gauge)({
        name: 'portcullis_store_up',
        help: 'Whether a shared store (e.g. redis) answers: 1 up, 0 down',
        labelNames: ['store'],
        registers,
        collect() {
          for (const h of health) this.set({ store: h.name }, h.isUp() ? 1 : 0);
        },
      });
      new (prom().Gauge)({
        name: 'portcullis_store_reconnects',
        help: 'Reconnection attempts to a shared store since start',
        labelNames: ['store'],
        registers,
        collect() {
          for (const h of health) this.set({ store: h.name }, h.reconnectCount());
        },
      });
    }
    if (options.defaultMetrics !== false) prom().collectDefaultMetrics({ register: this.registry });
  }

  forwardAuth(proxy: ProxyIndex, outcome: ForwardAuthOutcome, seconds: number): void {
    this.hot.record(proxy, outcome, seconds);
  }

  login(method: string, outcome: string): void {
    this.logins.inc({ method, outcome });
  }

  lock(): void {
    this.locks.inc();
  }

  /** One back-channel logout attempt's outcome (issue 35). */
  backchannelLogout(outcome: 'delivered' | 'failed' | 'given_up'): void {
    this.logouts.inc({ outcome });
  }

  /** One LDAP account check's outcome (issue 35, LDAP_ACCOUNT_CHECK_INTERVAL). */
  ldapAccountCheck(outcome: 'ok' | 'failed'): void {
    this.accountChecks.inc({ outcome });
  }

  /** Audit events the trail's recorder had to drop (issue 36). */
  auditTrailDropped(count: number): void {
    this.auditDrops.inc(count);
  }

  request(route: string, method: string, status: number, seconds: number): void {
    this.requests.observe({ route, method, status: String(status) }, seconds);
  }
}

interface Sample {
  readonly labels: Record<string, string>;
  readonly value: number;
  readonly metricName?: string;
}

/**
 * Forward-auth counts and latencies without prom-client on the hot path: prom-client's bound
 * children still hash and copy their labels on every call. Here a request costs a few array
 * increments; the samples are built only when Prometheus scrapes.
 */
class ForwardAuthStats {
  private readonly counts = new Float64Array(PROXY_NAMES.length * FORWARD_AUTH_OUTCOMES.length);
  /** Per proxy: one slot per bucket (non-cumulative) plus +Inf. */
  private readonly buckets = new Float64Array(PROXY_NAMES.length * (LATENCY_BUCKETS.length + 1));
  private readonly sums = new Float64Array(PROXY_NAMES.length);
  private readonly totals = new Float64Array(PROXY_NAMES.length);

  record(proxy: ProxyIndex, outcome: ForwardAuthOutcome, seconds: number): void {
    this.counts[proxy * FORWARD_AUTH_OUTCOMES.length + outcome] += 1;
    let b = 0;
    while (b < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[b]) b += 1;
    this.buckets[proxy * (LATENCY_BUCKETS.length + 1) + b] += 1;
    this.sums[proxy] += seconds;
    this.totals[proxy] += 1;
  }

  decisionsMetric() {
    return {
      name: 'portcullis_forward_auth_decisions_total',
      help: 'Forward-auth answers by proxy and outcome',
      type: 'counter',
      aggregator: 'sum',
      collect: () => undefined,
      reset: () => undefined,
      get: async () => {
        const values: Sample[] = [];
        PROXY_NAMES.forEach((proxy, p) =>
          FORWARD_AUTH_OUTCOMES.forEach((outcome, o) => values.push({ labels: { proxy, outcome }, value: this.counts[p * FORWARD_AUTH_OUTCOMES.length + o] })),
        );
        return {
          name: 'portcullis_forward_auth_decisions_total',
          help: 'Forward-auth answers by proxy and outcome',
          type: 'counter',
          aggregator: 'sum',
          values,
        };
      },
    };
  }

  latencyMetric() {
    const name = 'portcullis_forward_auth_duration_seconds';
    const help = 'Time to answer a forward-auth request, by proxy';
    return {
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      collect: () => undefined,
      reset: () => undefined,
      get: async () => {
        const values: Sample[] = [];
        PROXY_NAMES.forEach((proxy, p) => {
          let cumulative = 0;
          LATENCY_BUCKETS.forEach((le, b) => {
            cumulative += this.buckets[p * (LATENCY_BUCKETS.length + 1) + b];
            values.push({ metricName: `${name}_bucket`, labels: { le: String(le), proxy }, value: cumulative });
          });
          values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', proxy }, value: this.totals[p] });
          values.push({ metricName: `${name}_sum`, labels: { proxy }, value: this.sums[p] });
          values.push({ metricName: `${name}_count`, labels: { proxy }, value: this.totals[p] });
        });
        return { name, help, type: 'histogram', aggregator: 'sum', values };
      },
    };
  }
}

/** Counts logins and locks from the audit trail (the one place every login method reports to), then passes events on. */
export class MetricsAuditLog implements AuditLog {
  constructor(
    private readonly next: AuditLog,
    private readonly metrics: PrometheusMetrics,
  ) {}

  record(event: AuditEvent): void {
    try {
      if (event.event === 'login_succeeded') this.metrics.login(event.method, 'succeeded');
      else if (event.event === 'login_failed') this.metrics.login(event.method, 'failed');
      else if (event.event === 'login_locked') this.metrics.lock();
      else if (event.event === 'oidc_logout_delivered') this.metrics.backchannelLogout('delivered');
      else if (event.event === 'oidc_logout_failed') this.metrics.backchannelLogout('failed');
      else if (event.event === 'oidc_logout_given_up' || event.event === 'oidc_logout_not_queued') this.metrics.backchannelLogout('given_up');
    } catch {
      // Metrics must never fail a request.
    }
    this.next.record(event);
  }
}
