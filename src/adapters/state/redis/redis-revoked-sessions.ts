import type Redis from 'ioredis';
import type { Clock } from '../../../application/ports/clock';
import type { ReadinessCheck } from '../../../application/readiness/readiness-check';
import { StateStoreUnavailableError } from '../../../application/ports/state-store-unavailable';
import type { RevokedSessions } from '../../../application/ports/revoked-sessions';
import type { RedisConnection } from './redis-connection';
import type { Logger } from '../../system/logger';
import { BoundedExpiringMap } from '../bounded-map';

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
/** How many members one ZSCAN call asks for while a replica loads the set. */
const SCAN_PAGE = 5000;

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
 *
 * Until its first sync has finished, a replica knows none of the revocations made elsewhere:
 * `isRevoked` throws {@link StateStoreUnavailableError} then (cookie sessions get a 503, never a
 * pass), and the readiness check `revocations` fails, so a load balancer waits for it.
 * See docs/adr/0007-revocations-pushed-to-local-memory.md.
 */
export class RedisRevokedSessions implements RevokedSessions, ReadinessCheck {
  readonly name = 'revocations';
  // Until loaded, this replica answers every cookie session 503: it cannot serve forward auth.
  readonly gatesForwardAuth = true;
  private readonly known: BoundedExpiringMap<true>;
  /** Revocations made here that Redis has not confirmed yet. */
  private readonly pending = new Map<string, number>();
  private readonly key: string;
  private readonly channel: string;
  private subscriber: Redis | null = null;
  private synced = false;
  /** Set by the first sync that completes, never cleared: from then on memory may answer alone. */
  private loaded = false;
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

  /** True once a first sync has completed: only then does an unknown id mean "not revoked". */
  hasLoaded(): boolean {
    return this.loaded;
  }

  /** Readiness: fails until the revocations Redis holds have been loaded once. */
  async check(): Promise<void> {
    if (!this.loaded) throw new Error('revocations not loaded from redis yet');
  }

  /** True while revocations made here wait for Redis (it did not answer): the other replicas do not know them yet. */
  hasUnconfirmed(): boolean {
    return this.pending.size > 0;
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
    // A replica that has not read the shared set yet cannot tell a revoked session from a live one.
    if (!this.loaded) throw new StateStoreUnavailableError('redis');
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
      // Read in pages: one reply with a million members takes seconds, past the command timeout,
      // and a replica that can never finish its first sync could never answer a cookie.
      const inRedis = new Set<string>();
      let cursor = '0';
      do {
        const [next, entries] = await this.redis.run((c) => c.zscan(this.key, cursor, 'COUNT', SCAN_PAGE));
        cursor = next;
        for (let i = 0; i + 1 < entries.length; i += 2) {
          const until = Number(entries[i + 1]);
          if (until > now) {
            this.known.set(entries[i], true, until);
            inRedis.add(entries[i]);
          }
        }
      } while (cursor !== '0');
      // Everything Redis knew is known here now: from this point an unknown id is a live session.
      this.loaded = true;
      // What is known here and not in Redis goes back: pending logouts and whatever a restarted Redis lost.
      const pairs: (string | number)[] = [];
      for (const id of this.known.keys()) {
        if (inRedis.has(id) && !this.pending.has(id)) continue;
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
