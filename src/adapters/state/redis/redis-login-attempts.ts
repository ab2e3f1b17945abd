import type { AttemptLimit, AttemptReservation, LoginAttempts } from '../../../application/password/login-attempts';
import type { RedisConnection } from './redis-connection';
import { keyPart } from './redis-key';

/**
 * One Lua script per change, so that no number of replicas and simultaneous requests can slip
 * between a lock check and its count: check every key, then count against every key, in one step
 * on the server. A hash per key: `f` = failures in the current window (reserved attempts
 * included), `u` = locked until (ms), `w` = when the window ends (ms). ARGV: now, lockMs, then
 * one limit per key. Answers `{0, lockedUntil}` when refused, else `{1, lock end set per key...}`.
 */
const RESERVE = `
local now = tonumber(ARGV[1])
local lockMs = tonumber(ARGV[2])
local locked = 0
local counts = {}
for i = 1, #KEYS do
  local v = redis.call('HMGET', KEYS[i], 'f', 'u', 'w')
  local u = tonumber(v[2]) or 0
  if u > now and u > locked then locked = u end
  -- The window ends lockMs after the last failure (or with the lock), by the caller's clock.
  if now >= (tonumber(v[3]) or 0) then counts[i] = 0 else counts[i] = tonumber(v[1]) or 0 end
end
if locked > 0 then return {0, string.format('%.0f', locked)} end
local answer = {1}
for i = 1, #KEYS do
  local max = tonumber(ARGV[2 + i])
  local f = counts[i] + 1
  local u = 0
  if f >= max then u = now + lockMs end
  local keep = now + lockMs
  redis.call('HSET', KEYS[i], 'f', f, 'u', string.format('%.0f', u), 'w', string.format('%.0f', keep))
  redis.call('PEXPIRE', KEYS[i], string.format('%.0f', lockMs))
  answer[i + 1] = string.format('%.0f', u)
end
return answer
`;

/** Gives back one reserved failure per key whose window is still open; falling under the limit lifts the lock. */
const REFUND = `
local now = tonumber(ARGV[1])
for i = 1, #KEYS do
  local v = redis.call('HMGET', KEYS[i], 'f', 'w')
  local f = tonumber(v[1])
  if f ~= nil and now < (tonumber(v[2]) or 0) then
    if f > 0 then f = f - 1 end
    redis.call('HSET', KEYS[i], 'f', f)
    if f < tonumber(ARGV[1 + i]) then redis.call('HSET', KEYS[i], 'u', '0') end
  end
end
return 1
`;

interface Commands {
  portcullisReserveAttempt(...args: Array<string | number>): Promise<string[] | number[]>;
  portcullisRefundAttempt(...args: Array<string | number>): Promise<number>;
}

/**
 * Failure counters and locks shared by every replica. Each key lives only as long as its window
 * or lock (a TTL on every key). Throws StateStoreUnavailableError when Redis cannot answer, so
 * logins fail closed.
 */
export class RedisLoginAttempts implements LoginAttempts {
  constructor(private readonly redis: RedisConnection) {
    redis.client.defineCommand('portcullisReserveAttempt', { lua: RESERVE });
    redis.client.defineCommand('portcullisRefundAttempt', { lua: REFUND });
  }

  async lockedUntil(key: string, nowMs: number): Promise<number> {
    const until = Number(await this.redis.run((c) => c.hget(this.key(key), 'u')));
    return until > nowMs ? until : 0;
  }

  async reserve(limits: readonly AttemptLimit[], nowMs: number, lockMs: number): Promise<AttemptReservation> {
    const counted = limits.filter((l) => l.maxFailures >= 1);
    if (counted.length === 0) return { granted: true, locksUntil: limits.map(() => 0) };
    const keys = counted.map((l) => this.key(l.key));
    const answer = await this.redis.run((c) =>
      (c as unknown as Commands).portcullisReserveAttempt(keys.length, ...keys, nowMs, lockMs, ...counted.map((l) => l.maxFailures)),
    );
    if (Number(answer[0]) === 0) return { granted: false, lockedUntil: Number(answer[1]) };
    const set = new Map(counted.map((l, i) => [l, Number(answer[i + 1])]));
    return { granted: true, locksUntil: limits.map((l) => set.get(l) ?? 0) };
  }

  async refund(limits: readonly AttemptLimit[], nowMs: number): Promise<void> {
    const counted = limits.filter((l) => l.maxFailures >= 1);
    if (counted.length === 0) return;
    const keys = counted.map((l) => this.key(l.key));
    await this.redis.run((c) => (c as unknown as Commands).portcullisRefundAttempt(keys.length, ...keys, nowMs, ...counted.map((l) => l.maxFailures)));
  }

  async reset(key: string): Promise<void> {
    await this.redis.run((c) => c.del(this.key(key)));
  }

  private key(key: string): string {
    return `${this.redis.prefix}attempts:${keyPart(key)}`;
  }
}
