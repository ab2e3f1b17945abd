import * as promClient from 'prom-client';
import { PrometheusMetrics } from '../../../src/adapters/metrics/prometheus-metrics';
import { TrailAuditLog } from '../../../src/adapters/system/trail-audit-log';
import type { AuditTrail } from '../../../src/application/ports/audit-trail';
import { FixedClock } from '../../support/fakes';
import { silentLogger } from '../../support/loggers';

describe('the audit trail metric (issue 36)', () => {
  it('counts the events the recorder dropped while its store was down', async () => {
    const metrics = new PrometheusMetrics(promClient, [], { defaultMetrics: false });
    const down: AuditTrail = {
      append: () => Promise.reject(new Error('down')),
      query: () => Promise.reject(new Error('down')),
      prune: () => Promise.reject(new Error('down')),
    };
    const log = new TrailAuditLog(down, {
      clock: new FixedClock(),
      logger: silentLogger,
      retentionMs: 86_400_000,
      capacity: 2,
      flushMs: 3_600_000,
      dropped: (n) => metrics.auditTrailDropped(n),
    });
    for (const username of ['a', 'b', 'c', 'd', 'e']) log.record({ event: 'logout', username });
    await log.flush();
    await log.close();
    expect(await metrics.registry.metrics()).toContain('portcullis_audit_trail_dropped_total 3');
  });
});
