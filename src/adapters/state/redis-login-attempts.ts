import type { LoginAttempts } from '../../application/ports/login-attempts';
import type { RedisConnection } from '../redis/redis-connection';
import { keyPart } from '../redis/redis-key';

/**
 * One Lua script per change, so two replicas counting the same failure cannot both miss the
 * lock: read, count, lock and set the TTL happen in one step on the server. A hash per key:
 * `f` = failures in the current window, `u` = locked until (ms), `w` = when the window ends (ms).
 */
const RECORD_FAILURE = `
local now = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local lockMs = tonumber(ARGV[3])
local v = redis.call('HMGET', KEYS[1], 'f', 'u', 'w')
local failures = (tonumber(v[1]) or 0) + 1
local lockedUntil = tonumber(v[2]) or 0
-- The window ends lockMs after the last failure (or with the lock), by the caller's clock.
if now >= (tonumber(v[3]) or 0) then
  failures = 1
  lockedUntil = 0
end
if failures >= max then
  if now + lockMs > lockedUntil then lockedUntil = now + lockMs end
  failures = 0
end
local keep = now + lockMs
if lockedUntil > keep then keep = lockedUntil end
redis.call('HSET', KEYS[1], 'f', failures, 'u', string.format('%.0f', lockedUntil), 'w', string.format('%.0f', keep))
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', keep - now))
if lockedUntil > now then return string.format('%.0f', lockedUntil) end
return '0'
`;

interface Commands {
  portcullisRecordFailure(key: string, now: number, max: number, lockMs: number): Promise<string>;
}

/**
 * Failure counters and locks shared by every replica. Each key lives only as long as its window
 * or lock (a TTL on every key). Throws StateStoreUnavailableError when Redis cannot answer, so
 * logins fail closed.
 */
export class RedisLoginAttempts implements LoginAttempts {
  constructor(private readonly redis: RedisConnection) {
    redis.client.defineCommand('portcullisRecordFailure', { numberOfKeys: 1, lua: RECORD_FAILURE });
  }

  async lockedUntil(key: string, nowMs: number): Promise<number> {
    const until = Number(await this.redis.run((c) => c.hget(this.key(key), 'u')));
    return until > nowMs ? until : 0;
  }

  async recordFailure(key: string, nowMs: number, maxFailures: number, lockMs: number): Promise<number> {
    if (maxFailures <= 0) return 0;
    const until = await this.redis.run((c) => (c as unknown as Commands).portcullisRecordFailure(this.key(key), nowMs, maxFailures, lockMs));
    return Number(until);
  }

  async reset(key: string): Promise<void> {
    await this.redis.run((c) => c.del(this.key(key)));
  }

  private key(key: string): string {
    return `${this.redis.prefix}attempts:${keyPart(key)}`;
  }
}
