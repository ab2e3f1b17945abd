import type { LogoutDeliveries } from '../../../application/oidc/logout-deliveries';
import { LOGOUT_DELIVERY_KEPT_MS, type LogoutDelivery } from '../../../domain/backchannel-logout';
import type { RedisConnection } from './redis-connection';
import { keyPart } from './redis-key';

/* Each script runs atomically in Redis: no other replica's command runs between its steps. */

/** KEYS: the delivery, the schedule. ARGV: id, JSON, keep ms, due at. Queues unless the id is known. */
const ADD = `
if redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3], 'NX') then
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
end
return 1`;

/**
 * KEYS: the schedule. ARGV: now, lease end, limit, the delivery keys' prefix. Every id scored at
 * or before now (due and not leased) is rescored to the lease end and returned with its JSON.
 */
const CLAIM = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  local value = redis.call('GET', ARGV[4] .. id)
  if value then
    redis.call('ZADD', KEYS[1], ARGV[2], id)
    table.insert(out, value)
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return out`;

/** KEYS: the delivery, the schedule. ARGV: id, the new JSON, due at. Only a delivery still queued. */
const RETRY = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
end
return 1`;

/**
 * Back-channel logouts owed, shared by every replica: one key per delivery
 * (`logout:delivery:<id>`, its JSON, with a TTL past the longest retry bound) and one sorted set
 * (`logout:due`) scoring each id by when it may be claimed next: its due time, or its lease's end
 * once claimed. A claim is one script, so two replicas never claim the same delivery.
 */
export class RedisLogoutDeliveries implements LogoutDeliveries {
  constructor(private readonly redis: RedisConnection) {}

  private get itemPrefix(): string {
    return `${this.redis.prefix}logout:delivery:`;
  }

  private get schedule(): string {
    return `${this.redis.prefix}logout:due`;
  }

  private itemKey(id: string): string {
    return `${this.itemPrefix}${keyPart(id)}`;
  }

  async add(d: LogoutDelivery): Promise<void> {
    const keep = Math.max(1, d.createdAt + LOGOUT_DELIVERY_KEPT_MS - Date.now());
    await this.redis.run((c) => c.eval(ADD, 2, this.itemKey(d.id), this.schedule, keyPart(d.id), JSON.stringify(d), keep, d.dueAt));
  }

  async claim(now: number, leaseMs: number, limit: number): Promise<LogoutDelivery[]> {
    if (limit <= 0) return [];
    const values = (await this.redis.run((c) => c.eval(CLAIM, 1, this.schedule, now, now + leaseMs, limit, this.itemPrefix))) as string[];
    return values.map((v) => JSON.parse(v) as LogoutDelivery);
  }

  async retry(id: string, attempts: number, dueAt: number): Promise<void> {
    const key = this.itemKey(id);
    const value = await this.redis.run((c) => c.get(key));
    if (typeof value !== 'string') return;
    const next = { ...(JSON.parse(value) as LogoutDelivery), attempts, dueAt };
    await this.redis.run((c) => c.eval(RETRY, 2, key, this.schedule, keyPart(id), JSON.stringify(next), dueAt));
  }

  async remove(id: string): Promise<void> {
    await this.redis.run((c) => c.multi().del(this.itemKey(id)).zrem(this.schedule, keyPart(id)).exec());
  }
}
