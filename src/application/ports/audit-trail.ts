/**
 * One audit event as the durable trail keeps it (issue 36). `id` orders the trail: it starts with
 * the event's time, so ids sort like times (ties broken by the rest of the id). The person fields
 * are copied out of the event where it has them, so a store can filter by them; `data` is the
 * event itself (it never carries a secret: see AuditEvent).
 */
export interface StoredAuditEvent {
  readonly id: string;
  /** When it was recorded, ms since the epoch. */
  readonly time: number;
  readonly event: string;
  readonly username: string | null;
  /** The name typed at a login that failed or locked (it may name nobody). */
  readonly login: string | null;
  /** The acting administrator of an admin action. */
  readonly admin: string | null;
  readonly ip: string | null;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface AuditTrailQuery {
  /** Events whose username, login or admin is this name. */
  readonly username?: string;
  /** Events of this name (`login_succeeded`…). */
  readonly event?: string;
  /** Events at or after this time (ms). */
  readonly since?: number;
  /** Events strictly before this time (ms). */
  readonly before?: number;
  /** At most this many events (1 or more). */
  readonly limit: number;
  /** Only events older than the one with this id (the `next` of the page before). */
  readonly after?: string;
}

export interface AuditTrailPage {
  /** Newest first (by id). */
  readonly events: readonly StoredAuditEvent[];
  /** The id to pass as `after` for the next page; null when this page holds the last match. */
  readonly next: string | null;
}

/**
 * The durable audit trail (issue 36), in the gateway's state store: appended to in batches by the
 * recorder, read by the admin console, pruned by age (AUDIT_RETENTION_DAYS). Every method throws
 * StateStoreUnavailableError when the store cannot answer.
 */
export interface AuditTrail {
  /** Stores the events; an id already stored is kept as it was. */
  append(events: readonly StoredAuditEvent[]): Promise<void>;
  /** One page of the events that match every filter given, newest first. */
  query(query: AuditTrailQuery): Promise<AuditTrailPage>;
  /** Forgets every event recorded before `olderThan` (ms); resolves to how many went (a store may answer 0 when it cannot tell). */
  prune(olderThan: number): Promise<number>;
}

/** Whether a stored event matches a query's filters (not `limit`): shared by stores that filter in the process. */
export function matchesAuditQuery(e: StoredAuditEvent, q: Omit<AuditTrailQuery, 'limit'>): boolean {
  if (q.username !== undefined && e.username !== q.username && e.login !== q.username && e.admin !== q.username) return false;
  if (q.event !== undefined && e.event !== q.event) return false;
  if (q.since !== undefined && e.time < q.since) return false;
  if (q.before !== undefined && e.time >= q.before) return false;
  if (q.after !== undefined && e.id >= q.after) return false;
  return true;
}
