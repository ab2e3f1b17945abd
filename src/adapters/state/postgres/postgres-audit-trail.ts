import type { AuditTrail, AuditTrailPage, AuditTrailQuery, StoredAuditEvent } from '../../../application/ports/audit-trail';
import type { PostgresDatabase } from './postgres-database';
import { AUDIT_EVENT_COLUMNS, auditEventSelect, auditEventValues, auditPageOf, type AuditEventRow } from '../audit-event-rows';

/** How many events one prune statement deletes, so one statement never holds its locks for long. */
const PRUNE_CHUNK = 5_000;
/** Eight columns a row: a batch stays far below PostgreSQL's 65535 parameters. */
const INSERT_CHUNK = 500;

/**
 * The audit trail in PostgreSQL (table `audit_events`, schema step 10), shared by every replica:
 * each appends its own batches (ids never collide: they carry randomness), any reads them all.
 */
export class PostgresAuditTrail implements AuditTrail {
  constructor(private readonly database: PostgresDatabase) {}

  async append(events: readonly StoredAuditEvent[]): Promise<void> {
    for (let start = 0; start < events.length; start += INSERT_CHUNK) {
      const chunk = events.slice(start, start + INSERT_CHUNK);
      const rows = chunk.map((_, i) => `(${Array.from({ length: 8 }, (__, c) => `$${i * 8 + c + 1}`).join(', ')})`);
      await this.database.query(
        `INSERT INTO audit_events (${AUDIT_EVENT_COLUMNS}) VALUES ${rows.join(', ')} ON CONFLICT (id) DO NOTHING`,
        chunk.flatMap(auditEventValues),
      );
    }
  }

  async query(q: AuditTrailQuery): Promise<AuditTrailPage> {
    const { sql, params } = auditEventSelect(q, (n) => `$${n}`);
    return auditPageOf(await this.database.query<AuditEventRow & Record<string, unknown>>(sql, params), q.limit);
  }

  async prune(olderThan: number): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await this.database.query<{ id: string }>(
        'DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE time < $1 LIMIT $2) RETURNING id',
        [olderThan, PRUNE_CHUNK],
      );
      total += rows.length;
      if (rows.length < PRUNE_CHUNK) return total;
    }
  }
}
