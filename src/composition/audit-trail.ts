import type { Logger } from '../adapters/system/logger';
import { TrailAuditLog } from '../adapters/system/trail-audit-log';
import { ExportAuditTrailUseCase } from '../application/admin/export-audit-trail';
import { QueryAuditTrailUseCase } from '../application/admin/query-audit-trail';
import type { AuditTrail } from '../application/ports/audit-trail';
import type { Clock } from '../application/ports/clock';
import type { Config } from '../config/load';
import type { TypedContainer } from './binding';
import type { MetricsHolder } from './holders';
import type { Resources } from './resources';
import { bindStore } from './state';
import { TOKENS } from './tokens';

const DAY_MS = 86_400_000;

/**
 * The durable audit trail (issue 36): its store (with the records: PostgreSQL whenever configured,
 * so it survives a Redis flush), the recorder that core's AuditLog also writes to, and the console's
 * use cases. Recorded only with the console on (ADMIN_GROUPS) and AUDIT_RETENTION_DAYS above 0;
 * with 0 the start prunes everything (keeping nothing is what 0 days asks).
 */
export function bindAuditTrail(c: TypedContainer, config: Pick<Config, 'adminGroups' | 'auditRetentionDays'>): void {
  const bind = c.bind.bind(c) as TypedContainer['bind'];
  bindStore(c, TOKENS.AuditTrail, 'records', (s) => s.auditTrail());
  bind(
    TOKENS.AuditTrailRecorder,
    (trail: AuditTrail, clock: Clock, logger: Logger, m: MetricsHolder, resources: Resources): { readonly recorder: TrailAuditLog | null } => {
      if (config.adminGroups.length === 0) return { recorder: null };
      const metrics = m.metrics;
      const recorder = new TrailAuditLog(trail, {
        clock,
        logger,
        retentionMs: config.auditRetentionDays * DAY_MS,
        ...(metrics === null ? {} : { dropped: (n: number) => metrics.auditTrailDropped(n) }),
      });
      // Pruned once the stores have opened; closed (what waits written) before they close.
      resources.afterStart(async () => recorder.start());
      resources.add(() => recorder.close());
      return { recorder };
    },
    [TOKENS.AuditTrail, TOKENS.Clock, TOKENS.Logger, TOKENS.Metrics, TOKENS.Resources],
  );
  c.bindClass(TOKENS.QueryAuditTrailUseCase, QueryAuditTrailUseCase, [TOKENS.AdminGate, TOKENS.AuditTrail]);
  c.bindClass(TOKENS.ExportAuditTrailUseCase, ExportAuditTrailUseCase, [TOKENS.AdminGate, TOKENS.AuditTrail, TOKENS.AuditLog]);
}
