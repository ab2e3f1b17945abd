import { matchesAuditQuery, type AuditTrail, type AuditTrailPage, type AuditTrailQuery, type StoredAuditEvent } from '../../../application/ports/audit-trail';
import { auditEventId } from '../../../domain/audit-event-id';
import type { RedisConnection } from './redis-connection';

/** How many events Redis keeps at most, whatever the retention says: memory is the bound here. */
export const REDIS_AUDIT_CAPACITY = 100_000;
/** How many ids a query reads per round trip while it filters. */
const SCAN_CHUNK = 500;
/** How many ids one prune or trim step removes (Lua's unpack has a limit). */
const STEP = 1_000;

/* Each script runs atomically in Redis: no other replica's command runs between its steps. */

/** KEYS: the index, the events. ARGV: capacity, then id and JSON pairs. Adds new ids, then drops the oldest beyond the capacity. */
const APPEND = `
for i = 2, #ARGV, 2 do
  if redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]) == 1 then
    redis.call('ZADD', KEYS[1], 0, ARGV[i])
  end
end
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[1])
while excess > 0 do
  local n = math.min(excess, ${STEP})
  local ids = redis.call('ZRANGE', KEYS[1], 0, n - 1)
  redis.call('HDEL', KEYS[2], unpack(ids))
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - 1)
  excess = excess - n
end
return 1`;

/** KEYS: the index, the events. ARGV: the first id to keep. Removes up to STEP older ids; returns how many. */
const PRUNE = `
local ids = redis.call('ZRANGEBYLEX', KEYS[1], '-', '(' .. ARGV[1], 'LIMIT', 0, ${STEP})
if #ids > 0 then
  redis.call('HDEL', KEYS[2], unpack(ids))
  redis.call('ZREM', KEYS[1], unpack(ids))
end
return #ids`;

/**
 * The audit trail in Redis, shared by every replica: a sorted set `audit:ids` of event ids, all
 * scored 0 so Redis orders them by their bytes (ids start with their time: newest last), and a
 * hash `audit:events` from id to the event's JSON. A page walks the ids from the newest down and
 * filters the events it reads; time bounds become id bounds. Bounded to
 * {@link REDIS_AUDIT_CAPACITY} events: past it, each append drops the oldest.
 */
export class RedisAuditTrail implements AuditTrail {
  constructor(
    private readonly redis: RedisConnection,
    private readonly capacity = REDIS_AUDIT_CAPACITY,
  ) {}

  private get index(): string {
    return `${this.redis.prefix}audit:ids`;
  }

  private get store(): string {
    return `${this.redis.prefix}audit:events`;
  }

  async append(events: readonly StoredAuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    const args = events.flatMap((e) => [e.id, JSON.stringify(e)]);
    await this.redis.run((c) => c.eval(APPEND, 2, this.index, this.store, this.capacity, ...args));
  }

  async query(q: AuditTrailQuery): Promise<AuditTrailPage> {
    // Ids sort like times: `since` and `before` bound the walk, so only the time window is read.
    const low = q.since === undefined ? '-' : `[${auditEventId(q.since, '')}`;
    let high = q.before === undefined ? '+' : `(${auditEventId(q.before, '')}`;
    if (q.after !== undefined && (high === '+' || q.after < high.slice(1))) high = `(${q.after}`;
    const found: StoredAuditEvent[] = [];
    while (found.length <= q.limit) {
      const ids = (await this.redis.run((c) => c.zrevrangebylex(this.index, high, low, 'LIMIT', 0, SCAN_CHUNK))) as string[];
      if (ids.length === 0) break;
      const values = await this.redis.run((c) => c.hmget(this.store, ...ids));
      for (const value of values) {
        if (typeof value !== 'string') continue;
        const e = JSON.parse(value) as StoredAuditEvent;
        if (matchesAuditQuery(e, q)) found.push(e);
        if (found.length > q.limit) break;
      }
      if (ids.length < SCAN_CHUNK) break;
      high = `(${ids[ids.length - 1]}`;
    }
    const events = found.slice(0, q.limit);
    return { events, next: found.length > q.limit ? events[events.length - 1].id : null };
  }

  async prune(olderThan: number): Promise<number> {
    const keep = auditEventId(olderThan, '');
    let total = 0;
    for (;;) {
      const removed = Number(await this.redis.run((c) => c.eval(PRUNE, 2, this.index, this.store, keep)));
      total += removed;
      if (removed < STEP) return total;
    }
  }
}
