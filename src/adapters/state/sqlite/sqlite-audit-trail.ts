import type { AuditTrail, AuditTrailPage, AuditTrailQuery, StoredAuditEvent } from '../../../application/ports/audit-trail';
import type { Database, SqliteDatabase, Statement } from './sqlite-database';
import { AUDIT_EVENT_COLUMNS, auditEventSelect, auditEventValues, auditPageOf, type AuditEventRow } from '../audit-event-rows';

/** How many events one prune step deletes (each step its own commit). */
const PRUNE_CHUNK = 2_000;

/**
 * The audit trail on disk (table `audit_events`, schema step 10). Appends arrive in batches from
 * the recorder, one transaction each; reads go through the write queue too, so a page never
 * misses an append already acknowledged. A query's statement depends on which filters it has
 * (at most 32 shapes), so each shape is prepared once and kept.
 */
export class SqliteAuditTrail implements AuditTrail {
  private insert!: Statement<ReturnType<typeof auditEventValues>>;
  private prune_!: Statement<[number, number]>;
  private db!: Database;
  private readonly selects = new Map<string, Statement>();

  constructor(private readonly database: SqliteDatabase) {
    database.whenOpen((db) => {
      this.db = db;
      this.insert = db.prepare(`INSERT INTO audit_events (${AUDIT_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`);
      this.prune_ = db.prepare('DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE time < ? LIMIT ?)');
    });
  }

  async append(events: readonly StoredAuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.database.write(() => {
      for (const e of events) this.insert.run(...auditEventValues(e));
    });
  }

  query(q: AuditTrailQuery): Promise<AuditTrailPage> {
    const { sql, params } = auditEventSelect(q, () => '?');
    return this.database.write(() => {
      let statement = this.selects.get(sql);
      if (statement === undefined) {
        statement = this.db.prepare(sql);
        this.selects.set(sql, statement);
      }
      return auditPageOf(statement.all(...params) as AuditEventRow[], q.limit);
    });
  }

  async prune(olderThan: number): Promise<number> {
    // Small steps, each its own commit, so a backlog (a first start after a long pause) never blocks the event loop for long.
    let total = 0;
    for (;;) {
      const deleted = await this.database.write(() => this.prune_.run(olderThan, PRUNE_CHUNK).changes);
      total += deleted;
      if (deleted < PRUNE_CHUNK) return total;
    }
  }
}
