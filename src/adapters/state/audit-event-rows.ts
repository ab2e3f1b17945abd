import type { AuditTrailQuery, StoredAuditEvent } from '../../application/ports/audit-trail';

/** The audit_events columns (schema step 10) the SQL stores read and write, in this order. */
export const AUDIT_EVENT_COLUMNS = 'id, time, event, username, login, admin, ip, data';

export interface AuditEventRow {
  readonly id: string;
  readonly time: number | string;
  readonly event: string;
  readonly username: string | null;
  readonly login: string | null;
  readonly admin: string | null;
  readonly ip: string | null;
  readonly data: string;
}

export function auditEventValues(e: StoredAuditEvent): [string, number, string, string | null, string | null, string | null, string | null, string] {
  return [e.id, e.time, e.event, e.username, e.login, e.admin, e.ip, JSON.stringify(e.data)];
}

export function auditEventOf(row: AuditEventRow): StoredAuditEvent {
  return {
    id: row.id,
    time: Number(row.time),
    event: row.event,
    username: row.username,
    login: row.login,
    admin: row.admin,
    ip: row.ip,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}

/**
 * The SELECT for one page of a query (one row more than the limit, so the store knows whether
 * there is a next page), with `mark(n)` writing the n-th placeholder (`?` or `$n`).
 */
export function auditEventSelect(q: AuditTrailQuery, mark: (n: number) => string): { readonly sql: string; readonly params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (v: unknown): string => {
    params.push(v);
    return mark(params.length);
  };
  if (q.username !== undefined) {
    const name = q.username;
    where.push(`(username = ${param(name)} OR login = ${param(name)} OR admin = ${param(name)})`);
  }
  if (q.event !== undefined) where.push(`event = ${param(q.event)}`);
  if (q.since !== undefined) where.push(`time >= ${param(q.since)}`);
  if (q.before !== undefined) where.push(`time < ${param(q.before)}`);
  if (q.after !== undefined) where.push(`id < ${param(q.after)}`);
  const sql = `SELECT ${AUDIT_EVENT_COLUMNS} FROM audit_events${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY id DESC LIMIT ${param(q.limit + 1)}`;
  return { sql, params };
}

/** The page of a query's rows (fetched with one row beyond the limit). */
export function auditPageOf(rows: readonly AuditEventRow[], limit: number): { events: StoredAuditEvent[]; next: string | null } {
  const events = rows.slice(0, limit).map(auditEventOf);
  return { events, next: rows.length > limit && events.length > 0 ? events[events.length - 1].id : null };
}
