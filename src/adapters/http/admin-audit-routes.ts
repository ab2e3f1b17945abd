import { Readable } from 'node:stream';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { MAX_AUDIT_PAGE, type AuditFilters } from '../../application/admin/query-audit-trail';
import type { StoredAuditEvent } from '../../application/ports/audit-trail';
import { AUDIT_EVENT_ID } from '../../domain/audit-event-id';
import { answer } from './answer';
import { invalidFields } from './answers';
import { adminRefused, type AdminUseCases } from './admin-routes';
import type { HttpSettings } from './http-settings';
import { callerOf } from './koa-facts';
import { renderAnswer } from './koa-renderer';

export type AdminAuditUseCases = Pick<AdminUseCases, 'queryAuditTrail' | 'exportAuditTrail'>;

const DEFAULT_LIMIT = 50;
const MAX_NAME = 256;
/** An ISO 8601 date, or date and time (`2026-12-01`, `2026-12-01T10:00`, `…:00.000Z`, `…+01:00`). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** What the query string asked: the filters, the page size and where the page starts. */
export interface AuditQuestion {
  readonly filters: AuditFilters;
  readonly limit: number;
  readonly after?: string;
}

/** The cursor the API hands out: the last event's id, opaque to clients (they only pass it back). */
export const auditCursorOf = (id: string): string => Buffer.from(id, 'utf8').toString('base64url');

function idOfCursor(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return null;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  return AUDIT_EVENT_ID.test(id) ? id : null;
}

function timeOf(raw: string): number | null {
  if (!ISO_TIME.test(raw)) return null;
  // A date and time without a zone is UTC, like a date alone (JavaScript would read it as local time).
  const ms = Date.parse(raw.includes('T') && !/(Z|[+-]\d{2}:\d{2})$/.test(raw) ? `${raw}Z` : raw);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * `?username=&event=&since=&before=` (and, with `paged`, `limit=&cursor=`): the question, or the
 * names of the parameters that are wrong. Every parameter at most once.
 */
export function readAuditQuestion(query: Readonly<Record<string, string | string[] | undefined>>, paged: boolean): AuditQuestion | readonly string[] {
  const bad: string[] = [];
  const one = (name: string): string | undefined => {
    const v = query[name];
    if (Array.isArray(v)) {
      bad.push(name);
      return undefined;
    }
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const filters: { -readonly [K in keyof AuditFilters]: AuditFilters[K] } = {};
  const username = one('username');
  if (username !== undefined) {
    if (username.length > MAX_NAME) bad.push('username');
    else filters.username = username;
  }
  const event = one('event');
  if (event !== undefined) {
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(event)) bad.push('event');
    else filters.event = event;
  }
  for (const name of ['since', 'before'] as const) {
    const raw = one(name);
    if (raw === undefined) continue;
    const ms = timeOf(raw);
    if (ms === null) bad.push(name);
    else filters[name] = ms;
  }
  let limit = DEFAULT_LIMIT;
  let after: string | undefined;
  if (paged) {
    const rawLimit = one('limit');
    if (rawLimit !== undefined) {
      const n = Number(rawLimit);
      if (!/^\d+$/.test(rawLimit) || n < 1 || n > MAX_AUDIT_PAGE) bad.push('limit');
      else limit = n;
    }
    const cursor = one('cursor');
    if (cursor !== undefined) {
      const id = idOfCursor(cursor);
      if (id === null) bad.push('cursor');
      else after = id;
    }
  } else {
    for (const name of ['limit', 'cursor']) if (query[name] !== undefined) bad.push(name);
  }
  if (bad.length > 0) return [...new Set(bad)];
  return { filters, limit, ...(after === undefined ? {} : { after }) };
}

/** One event as the API shows it: times as ISO strings, the event's own fields under `data`. */
export function auditEventView(e: StoredAuditEvent): Record<string, unknown> {
  return {
    id: e.id,
    time: new Date(e.time).toISOString(),
    event: e.event,
    username: e.username,
    login: e.login,
    admin: e.admin,
    ip: e.ip,
    data: e.data,
  };
}

/** The export's lines: one JSON object per event, each ended by a newline. */
async function* linesOf(events: AsyncIterable<StoredAuditEvent>): AsyncGenerator<string> {
  for await (const e of events) yield `${JSON.stringify(auditEventView(e))}\n`;
}

/**
 * `GET /api/admin/audit` and `GET /api/admin/audit/export` (issue 36): the durable audit trail for
 * an administrator with a fresh second factor (the use cases ask AdminGate on every request).
 */
export function adminAuditRoutes(router: Router, useCases: AdminAuditUseCases, settings: HttpSettings): void {
  const loginUrl = `${settings.appUrl.replace(/\/+$/, '')}/login`;
  const caller = (ctx: Context) => callerOf(ctx, settings.clientAddress);

  router.get('/admin/audit', async (ctx) => {
    const question = readAuditQuestion(ctx.query, true);
    if (Array.isArray(question)) return renderAnswer(ctx, invalidFields(question as readonly string[]));
    const q = question as AuditQuestion;
    const result = await useCases.queryAuditTrail.execute({ ...caller(ctx), ...q });
    if (!result.ok) return renderAnswer(ctx, adminRefused(result.error, loginUrl, 'admin audit'));
    const { events, next } = result.value;
    renderAnswer(ctx, answer(200, 'audit', [], { fields: { events: events.map(auditEventView), next: next === null ? null : auditCursorOf(next) } }));
  });

  router.get('/admin/audit/export', async (ctx) => {
    const question = readAuditQuestion(ctx.query, false);
    if (Array.isArray(question)) return renderAnswer(ctx, invalidFields(question as readonly string[]));
    const result = await useCases.exportAuditTrail.execute({ ...caller(ctx), filters: (question as AuditQuestion).filters });
    if (!result.ok) return renderAnswer(ctx, adminRefused(result.error, loginUrl, 'admin audit export'));
    ctx.status = 200;
    ctx.set({
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="portcullis-audit-${new Date().toISOString().slice(0, 10)}.jsonl"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    ctx.body = Readable.from(linesOf(result.value));
  });
}
