import * as promClient from 'prom-client';
import { MetricsAuditLog, PrometheusMetrics } from '../../../src/adapters/metrics/prometheus-metrics';
import { RecordingAuditLog } from '../../support/fakes';

describe('back-channel logout metrics (issue 35)', () => {
  it('counts delivered, failed and given-up attempts from the audit trail, and passes the events on', async () => {
    const metrics = new PrometheusMetrics(promClient, [], { defaultMetrics: false });
    const next = new RecordingAuditLog();
    const audit = new MetricsAuditLog(next, metrics);
    audit.record({ event: 'oidc_logout_delivered', client: 'wiki', attempts: 1 });
    audit.record({ event: 'oidc_logout_failed', client: 'wiki', attempts: 1, reason: 'unreachable' });
    audit.record({ event: 'oidc_logout_failed', client: 'wiki', attempts: 2, reason: 'refused_503' });
    audit.record({ event: 'oidc_logout_given_up', client: 'wiki', attempts: 3, reason: 'refused_503' });
    const text = await metrics.registry.metrics();
    expect(text).toContain('portcullis_oidc_backchannel_logouts_total{outcome="delivered"} 1');
    expect(text).toContain('portcullis_oidc_backchannel_logouts_total{outcome="failed"} 2');
    expect(text).toContain('portcullis_oidc_backchannel_logouts_total{outcome="given_up"} 1');
    expect(next.events).toHaveLength(4);
  });
});
