import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AuditEvent, AuditLog } from '../../application/ports/audit-log';
import {
  FORWARD_AUTH_OUTCOMES, PROXY_NAMES, type ForwardAuthOutcome, type HttpMetrics, type ProxyIndex,
} from '../http/http-metrics';

/** A store whose health is worth a gauge (Redis today). */
export interface HealthSource {
  readonly name: string;
  isUp(): boolean;
  reconnectCount(): number;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Prometheus metrics in a registry of this gateway's own (two gateways in one process do not
 * mix). Forward-auth counters and histograms are bound to their labels once, up front.
 */
export class PrometheusMetrics implements HttpMetrics {
  readonly registry = new Registry();
  private readonly decisions: Counter.Internal[][];
  private readonly latency: Histogram.Internal<string>[];
  private readonly logins: Counter<'method' | 'outcome'>;
  private readonly locks: Counter;
  private readonly requests: Histogram<'route' | 'method' | 'status'>;

  constructor(health: readonly HealthSource[] = [], options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    const decisions = new Counter({
      name: 'portcullis_forward_auth_decisions_total',
      help: 'Forward-auth answers by proxy and outcome',
      labelNames: ['proxy', 'outcome'],
      registers,
    });
    const latency = new Histogram({
      name: 'portcullis_forward_auth_duration_seconds',
      help: 'Time to answer a forward-auth request, by proxy',
      labelNames: ['proxy'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    // Every series exists from the start at 0, so rate() and absent-alerts work before the first request.
    this.decisions = PROXY_NAMES.map((proxy) =>
      FORWARD_AUTH_OUTCOMES.map((outcome) => {
        const bound = decisions.labels(proxy, outcome);
        bound.inc(0);
        return bound;
      }),
    );
    this.latency = PROXY_NAMES.map((proxy) => {
      latency.zero({ proxy });
      return latency.labels(proxy);
    });
    this.logins = new Counter({
      name: 'portcullis_logins_total',
      help: 'Login attempts by method and outcome',
      labelNames: ['method', 'outcome'],
      registers,
    });
    this.locks = new Counter({ name: 'portcullis_login_locks_total', help: 'Accounts or addresses locked after too many failures', registers });
    this.requests = new Histogram({
      name: 'portcullis_http_request_duration_seconds',
      help: 'Time to answer API and UI requests (forward auth has its own histogram)',
      labelNames: ['route', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    if (health.length > 0) {
      new Gauge({
        name: 'portcullis_store_up',
        help: 'Whether a shared store (e.g. redis) answers: 1 up, 0 down',
        labelNames: ['store'],
        registers,
        collect() {
          for (const h of health) this.set({ store: h.name }, h.isUp() ? 1 : 0);
        },
      });
      new Gauge({
        name: 'portcullis_store_reconnects',
        help: 'Reconnection attempts to a shared store since start',
        labelNames: ['store'],
        registers,
        collect() {
          for (const h of health) this.set({ store: h.name }, h.reconnectCount());
        },
      });
    }
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  forwardAuth(proxy: ProxyIndex, outcome: ForwardAuthOutcome, seconds: number): void {
    this.decisions[proxy][outcome].inc();
    this.latency[proxy].observe(seconds);
  }

  login(method: string, outcome: string): void {
    this.logins.inc({ method, outcome });
  }

  lock(): void {
    this.locks.inc();
  }

  request(route: string, method: string, status: number, seconds: number): void {
    this.requests.observe({ route, method, status: String(status) }, seconds);
  }
}

/** Counts logins and locks from the audit trail (the one place every login method reports to), then passes events on. */
export class MetricsAuditLog implements AuditLog {
  constructor(private readonly next: AuditLog, private readonly metrics: PrometheusMetrics) {}

  record(event: AuditEvent): void {
    try {
      if (event.event === 'login_succeeded') this.metrics.login(event.method, 'succeeded');
      else if (event.event === 'login_failed') this.metrics.login(event.method, 'failed');
      else if (event.event === 'login_locked') this.metrics.lock();
    } catch {
      // Metrics must never fail a request.
    }
    this.next.record(event);
  }
}
