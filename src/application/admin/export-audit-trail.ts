import { ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { AuditTrail, StoredAuditEvent } from '../ports/audit-trail';
import { unavailableAsError, type StoreUnavailable } from '../store-unavailable';
import type { AdminGate, AdminRefusal, AdminRequest } from './admin-gate';
import type { AuditFilters } from './query-audit-trail';

export interface ExportAuditTrailInput extends AdminRequest {
  readonly filters: AuditFilters;
}

/** The most events one export holds (newest first): a bound on one response, whatever the trail holds. */
export const MAX_AUDIT_EXPORT = 100_000;
const PAGE = 500;

/**
 * `GET /api/admin/audit/export` (issue 36): every event that matches the filters, newest first, as
 * an iterable the HTTP adapter streams (at most {@link MAX_AUDIT_EXPORT}). The first page is read
 * before the answer starts, so a store that is down gives a 503 rather than a broken download;
 * the export itself is audited with the acting administrator.
 */
export class ExportAuditTrailUseCase {
  constructor(
    private readonly gate: AdminGate,
    private readonly trail: AuditTrail,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: ExportAuditTrailInput): Promise<Result<AsyncIterable<StoredAuditEvent>, AdminRefusal | StoreUnavailable>> {
    const admitted = await this.gate.admit(input);
    if (!admitted.ok) return admitted;
    return unavailableAsError(async () => {
      const first = await this.trail.query({ ...input.filters, limit: PAGE });
      this.audit.record({ event: 'admin_audit_exported', admin: admitted.value.identity.username, ip: input.ip, requestId: input.requestId });
      const trail = this.trail;
      async function* events(): AsyncGenerator<StoredAuditEvent> {
        let page = first;
        let sent = 0;
        for (;;) {
          for (const e of page.events.slice(0, MAX_AUDIT_EXPORT - sent)) yield e;
          sent += page.events.length;
          if (page.next === null || sent >= MAX_AUDIT_EXPORT) return;
          page = await trail.query({ ...input.filters, limit: Math.min(PAGE, MAX_AUDIT_EXPORT - sent), after: page.next });
        }
      }
      return ok(events());
    });
  }
}
