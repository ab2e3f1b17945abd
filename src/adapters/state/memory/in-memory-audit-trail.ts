import { matchesAuditQuery, type AuditTrail, type AuditTrailPage, type AuditTrailQuery, type StoredAuditEvent } from '../../../application/ports/audit-trail';

/**
 * The audit trail in this process (one replica, lost at restart), kept sorted by id. Bounded: past
 * `capacity` the oldest events go, so a flood of denials cannot grow memory forever.
 */
export class InMemoryAuditTrail implements AuditTrail {
  private readonly events: StoredAuditEvent[] = [];
  private readonly ids = new Set<string>();

  constructor(private readonly capacity = 10_000) {}

  async append(events: readonly StoredAuditEvent[]): Promise<void> {
    for (const e of events) {
      if (this.ids.has(e.id)) continue;
      this.ids.add(e.id);
      this.events.splice(this.indexAfter(e.id), 0, { ...e, data: { ...e.data } });
    }
    while (this.events.length > this.capacity) this.ids.delete(this.events.shift()!.id);
  }

  async query(q: AuditTrailQuery): Promise<AuditTrailPage> {
    const found: StoredAuditEvent[] = [];
    for (let i = this.events.length - 1; i >= 0 && found.length <= q.limit; i -= 1) {
      if (matchesAuditQuery(this.events[i], q)) found.push(this.events[i]);
    }
    const page = found.slice(0, q.limit);
    return { events: page, next: found.length > q.limit ? page[page.length - 1].id : null };
  }

  async prune(olderThan: number): Promise<number> {
    let n = 0;
    while (n < this.events.length && this.events[n].time < olderThan) n += 1;
    for (const e of this.events.splice(0, n)) this.ids.delete(e.id);
    return n;
  }

  /** Where an id goes to keep the list sorted: after every smaller id (appends at the end, usually). */
  private indexAfter(id: string): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.events[mid].id < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
