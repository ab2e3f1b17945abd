import type Redis from 'ioredis';
import type { Clock } from '../../application/ports/clock';
import type { RevokedSessions } from '../../application/ports/revoked-sessions';
import type { RedisConnection } from '../redis/redis-connection';
import type { Logger } from '../system/logger';
import { BoundedExpiringMap } from './bounded-map';

/**
 * Adds revocations (pairs of id and until-ms) to the sorted set, drops expired members, keeps
 * the key's TTL at the latest expiry, and publishes each revocation Redis did not know yet.
 * KEYS[1] = the sorted set; ARGV = now, channel, id1, until1, id2, until2, ...
 */
const REVOKE = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local latest = 0
for i = 3, #ARGV, 2 do
  local untilMs = tonumber(ARGV[i + 1])
  if untilMs > now then
    if redis.call('ZADD', KEYS[1], 'GT', 'CH', ARGV[i + 1], ARGV[i]) == 1 then
      redis.call('PUBLISH', ARGV[2], ARGV[i] .. ' ' .. ARGV[i + 1])
    end
    if untilMs > latest then latest = untilMs end
  end
end
if latest > now then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl == -1 or ttl < latest - now then redis.call('PEXPIRE', KEYS[1], string.format('%.0f', latest - now)) end
end
return 1
`;

interface Commands {
  portcullisRevoke(key: string, now: number, channel: string, ...pairs: (string | number)[]): Promise<number>;
}

/** How many revocations one script call carries when this replica re-seeds Redis. */
const CHUNK = 500;

/**
 * Revoked sessions shared by every replica, answered from memory.
 *
 * The forward-auth hot path must not wait for Redis: every replica keeps the revocations it
 * knows in a local bounded map. Redis holds them all in one sorted set (score = the session's
 * expiry, TTL on the key); a revocation is published on a channel that every replica
 * subscribes to; after each (re)connection a replica first subscribes, then reads the whole
 * set and pushes back the ones Redis lost (a restart without persistence), so nothing that was
 * revoked before an outage is forgotten. While Redis is down, `isRevoked` keeps answering from
 * memory, and a logout is honoured locally at once and written to Redis when it returns.
 * See docs/adr/0006-revocations-pushed-to-local-memory.md.
 */
export class RedisRevokedSessions implements RevokedSessions {
  private readonly known: BoundedExpiringMap<true>;
  /** Revocations made here that Redis has not confirmed yet. */
  private readonly pending = new Map<string, number>();
  private readonly key: string;
  private readonly channel: string;
  private subscriber: Redis | null = null;
  private synced = false;
  private syncing: Promise<void> | null = null;
  private writes = 0;

  constructor(
    private readonly redis: RedisConnection,
    private readonly clock: Clock,
    private readonly logger: Logger,
    capacity = 1_000_000,
  ) {
    this.known = new BoundedExpiringMap(capacity);
    this.key = `${redis.prefix}revoked`;
    this.channel = `${redis.prefix}revoked`;
    redis.client.defineCommand('portcullisRevoke', { numberOfKeys: 1, lua: REVOKE });
  }

  /** Subscribes and loads what Redis knows, now and after every reconnection. Call once. */
  start(): void {
    const sub = this.redis.subscriberConnection();
    this.subscriber = sub;
    sub.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.learn(message);
    });
    sub.on('ready', () => void this.resubscribeAndSync());
    sub.on('close', () => {
      this.synced = false;
    });
    this.redis.onHealthChange((up) => {
      if (up) void this.resubscribeAndSync();
    });
    if (sub.status === 'ready') void this.resubscribeAndSync();
  }

  /** True once the local set holds everything Redis knew at the last (re)connection. */
  isSynced(): boolean {
    return this.synced;
  }

  /** Resolves when a sync that is running has finished (for tests and start-up). */
  async settled(): Promise<void> {
    while (this.syncing !== null) await this.syncing;
  }

  async revoke(id: string, untilMs: number): Promise<void> {
    const now = this.clock.now();
    if (++this.writes % 1024 === 0) this.known.sweep(now);
    this.known.set(id, true, untilMs);
    try {
      await this.redis.run((c) => (c as unknown as Commands).portcullisRevoke(this.key, now, this.channel, id, untilMs));
    } catch {
      // Honoured here at once; written to Redis (and so to the other replicas) when it is back.
      this.pending.set(id, untilMs);
    }
  }

  async isRevoked(id: string): Promise<boolean> {
    return this.known.size !== 0 && this.known.get(id, this.clock.now()) === true;
  }

  private learn(message: string): void {
    const space = message.lastIndexOf(' ');
    const until = Number(message.slice(space + 1));
    if (space <= 0 || !Number.isFinite(until)) return;
    const id = message.slice(0, space);
    if (until > this.clock.now()) this.known.set(id, true, until);
  }

  private resubscribeAndSync(): Promise<void> {
    if (this.syncing === null) {
      this.syncing = this.sync().finally(() => {
        this.syncing = null;
      });
    }
    return this.syncing;
  }

  /**
   * Subscribe first, then read: a revocation published in between arrives by message, so
   * none falls in a gap. Then push what this replica knows and Redis does not.
   */
  private async sync(): Promise<void> {
    const sub = this.subscriber;
    if (sub === null || sub.status !== 'ready' || !this.redis.isUp()) return;
    try {
      await sub.subscribe(this.channel);
      const now = this.clock.now();
      const entries = await this.redis.run((c) => c.zrangebyscore(this.key, `(${now}`, '+inf', 'WITHSCORES'));
      for (let i = 0; i + 1 < entries.length; i += 2) {
        const until = Number(entries[i + 1]);
        if (until > now) this.known.set(entries[i], true, until);
      }
      // Everything known here goes back: pending logouts and whatever a restarted Redis lost.
      const pairs: (string | number)[] = [];
      for (const id of this.known.keys()) {
        const until = this.untilOf(id, now);
        if (until > now) pairs.push(id, until);
      }
      for (let i = 0; i < pairs.length; i += CHUNK * 2) {
        const chunk = pairs.slice(i, i + CHUNK * 2);
        await this.redis.run((c) => (c as unknown as Commands).portcullisRevoke(this.key, now, this.channel, ...chunk));
      }
      this.pending.clear();
      this.synced = true;
    } catch {
      this.synced = false;
      this.logger.debug('redis revocation sync failed; retrying');
      setTimeout(() => void this.resubscribeAndSync(), 1000).unref();
    }
  }

  private untilOf(id: string, now: number): number {
    return this.pending.get(id) ?? this.known.expiryOf(id, now) ?? 0;
  }
}
