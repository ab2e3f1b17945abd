import { ok, type Result } from '../../domain/result';
import type { AuditTrail, AuditTrailPage, AuditTrailQuery } from '../ports/audit-trail';
import { unavailableAsError, type StoreUnavailable } from '../store-unavailable';
import type { AdminGate, AdminRefusal, AdminRequest } from './admin-gate';

/** The filters an administrator may ask the trail for (person, event name, time window). */
export type AuditFilters = Pick<AuditTrailQuery, 'username' | 'event' | 'since' | 'before'>;

export interface QueryAuditTrailInput extends AdminRequest {
  readonly filters: AuditFilters;
  /** 1 to {@link MAX_AUDIT_PAGE}. */
  readonly limit: number;
  /** The `next` of the page before: only events older than it. */
  readonly after?: string;
}

/** The most events one page of `GET /api/admin/audit` holds. */
export const MAX_AUDIT_PAGE = 500;

/**
 * `GET /api/admin/audit` (issue 36): one page of the durable audit trail, newest first, for an
 * administrator with a fresh second factor.
 */
export class QueryAuditTrailUseCase {
  constructor(
    private readonly gate: AdminGate,
    private readonly trail: AuditTrail,
  ) {}

  async execute(input: QueryAuditTrailInput): Promise<Result<AuditTrailPage, AdminRefusal | StoreUnavailable>> {
    const admitted = await this.gate.admit(input);
    if (!admitted.ok) return admitted;
    const limit = Math.min(MAX_AUDIT_PAGE, Math.max(1, Math.floor(input.limit)));
    return unavailableAsError(async () =>
      ok(await this.trail.query({ ...input.filters, limit, ...(input.after === undefined ? {} : { after: input.after }) })),
    );
  }
}
