import type { Clock } from '../../../application/ports/clock';
import type { IndexedSession, SessionIndex, SessionSighting } from '../../../application/ports/session-index';
import type { RedisConnection } from './redis-connection';
import { keyPart } from './redis-key';

/**
 * Stores one session (a hash expiring with the session) and adds it to its account's sorted set
 * (score = expiry), dropping the set's expired members and keeping the set's TTL at its latest expiry;
 * the accounts set keeps the account at its latest session's expiry.
 * KEYS[1] = the session's hash, KEYS[2] = the account's set, KEYS[3] = the accounts set; ARGV = now, id, username, method,
 * user agent, address, started, last seen, expires.
 */
const REGISTER = `
local now = tonumber(ARGV[1])
local expires = tonumber(ARGV[9])
if expires <= now then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'u', ARGV[3], 'm', ARGV[4], 'a', ARGV[5], 'ip', ARGV[6], 's', ARGV[7], 'l', ARGV[8], 'e', ARGV[9])
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', expires - now))
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[9], ARGV[2])
local ttl = redis.call('PTTL', KEYS[2])
if ttl < expires - now then redis.call('PEXPIRE', KEYS[2], string.format('%.0f', expires - now)) end
local last = redis.call('ZSCORE', KEYS[3], ARGV[3])
if not last or tonumber(last) < expires then redis.call('ZADD', KEYS[3], ARGV[9], ARGV[3]) end
return 1
`;

/** Moves last seen forward for each known session hash. KEYS = the hashes; ARGV = the times, in the same order. */
const TOUCH = `
for i = 1, #KEYS do
  local last = tonumber(redis.call('HGET', KEYS[i], 'l'))
  if last and last < tonumber(ARGV[i]) then redis.call('HSET', KEYS[i], 'l', ARGV[i]) end
end
return 1
`;

/** Raises each account's score to the given expiry, never lowers it. KEYS[1] = the accounts set; ARGV = username, expiry pairs. */
const AT_LEAST = `
for i = 1, #ARGV, 2 do
  local last = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if not last or tonumber(last) < tonumber(ARGV[i + 1]) then redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i]) end
end
return 1
`;

interface Commands {
  portcullisRegisterSession(hash: string, set: string, accounts: string, ...args: (string | number)[]): Promise<number>;
  portcullisAccountsAtLeast(accounts: string, ...pairs: (string | number)[]): Promise<number>;
  portcullisTouchSessions(count: number, ...keysThenTimes: (string | number)[]): Promise<number>;
}

/** How many sightings one script call carries. */
const CHUNK = 500;
/** Keys one SCAN step asks for. */
const SCAN_PAGE = 1_000;

/**
 * The session index in Redis, shared by every replica: a hash per session
 * (`<prefix>sessions:s:<id>`, expiring with it) and a sorted set of ids per account
 * (`<prefix>sessions:u:<account>`, score = expiry), and one sorted set of accounts by their latest
 * session's expiry (`<prefix>sessions:accounts`, trimmed as it is read). Redis expires the first two by itself, so nothing here
 * needs sweeping. Every call asks Redis: the account page is not a hot path.
 */
export class RedisSessionIndex implements SessionIndex {
  /** The one-time adding of sessions registered before the accounts set existed (see {@link accounts}). */
  private earlier: Promise<void> | null = null;

  constructor(
    private readonly redis: RedisConnection,
    private readonly clock: Clock,
  ) {
    redis.client.defineCommand('portcullisRegisterSession', { numberOfKeys: 3, lua: REGISTER });
    redis.client.defineCommand('portcullisTouchSessions', { lua: TOUCH });
    redis.client.defineCommand('portcullisAccountsAtLeast', { numberOfKeys: 1, lua: AT_LEAST });
  }

  private sessionKey(id: string): string {
    return `${this.redis.prefix}sessions:s:${keyPart(id)}`;
  }

  private accountKey(username: string): string {
    return `${this.redis.prefix}sessions:u:${keyPart(username.toLowerCase())}`;
  }

  /** Every account with a session, scored by its latest session's expiry (what {@link accounts} reads, never a scan). */
  private get accountsKey(): string {
    return `${this.redis.prefix}sessions:accounts`;
  }

  async register(s: IndexedSession): Promise<void> {
    const username = s.username.toLowerCase();
    await this.redis.run((c) =>
      (c as unknown as Commands).portcullisRegisterSession(
        this.sessionKey(s.id),
        this.accountKey(username),
        this.accountsKey,
        this.clock.now(),
        s.id,
        username,
        s.method,
        s.userAgent,
        s.address,
        s.startedAt,
        s.lastSeenAt,
        s.expiresAt,
      ),
    );
  }

  async list(username: string): Promise<IndexedSession[]> {
    const now = this.clock.now();
    const ids = await this.redis.run((c) => c.zrangebyscore(this.accountKey(username), `(${now}`, '+inf'));
    if (ids.length === 0) return [];
    const hashes = await this.redis.run(async (c) => {
      const pipeline = c.pipeline();
      for (const id of ids) pipeline.hgetall(this.sessionKey(id));
      const results = (await pipeline.exec()) ?? [];
      return results.map(([e, v]) => {
        if (e !== null) throw e;
        return v as Record<string, string>;
      });
    });
    const found: IndexedSession[] = [];
    hashes.forEach((h, i) => {
      if (h.u === undefined || Number(h.e) <= now) return;
      found.push({
        id: ids[i],
        username: h.u,
        method: h.m,
        userAgent: h.a,
        address: h.ip,
        startedAt: Number(h.s),
        expiresAt: Number(h.e),
        lastSeenAt: Number(h.l),
      });
    });
    return found.sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? -1 : 1));
  }

  async accounts(): Promise<string[]> {
    this.earlier ??= this.addEarlierSessions().catch((e: unknown) => {
      this.earlier = null;
      throw e;
    });
    await this.earlier;
    const now = this.clock.now();
    return this.redis.run(async (c) => {
      await c.zremrangebyscore(this.accountsKey, '-inf', now);
      return c.zrangebyscore(this.accountsKey, `(${now}`, '+inf');
    });
  }

  /**
   * Sessions registered by a version before the accounts set are added to it, once per process:
   * one SCAN of the session hashes (the first check after a start pays it, never a request).
   */
  private async addEarlierSessions(): Promise<void> {
    const match = `${this.redis.prefix.replace(/[*?[\]\\]/g, '\\$&')}sessions:s:*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.run((c) => c.scan(cursor, 'MATCH', match, 'COUNT', SCAN_PAGE));
      cursor = next;
      if (keys.length === 0) continue;
      const fields = await this.redis.run(async (c) => {
        const pipeline = c.pipeline();
        for (const key of keys) pipeline.hmget(key, 'u', 'e');
        return ((await pipeline.exec()) ?? []).map(([e, v]) => {
          if (e !== null) throw e;
          return v as (string | null)[];
        });
      });
      const latest = new Map<string, number>();
      for (const [username, expires] of fields) {
        if (username === null || username === undefined || expires === null || expires === undefined) continue;
        latest.set(username, Math.max(latest.get(username) ?? 0, Number(expires)));
      }
      if (latest.size > 0) {
        const pairs = [...latest].flatMap(([username, expires]) => [username, expires]);
        await this.redis.run((c) => (c as unknown as Commands).portcullisAccountsAtLeast(this.accountsKey, ...pairs));
      }
    } while (cursor !== '0');
  }

  async lastSeen(id: string): Promise<number | null> {
    const [last, expires] = await this.redis.run((c) => c.hmget(this.sessionKey(id), 'l', 'e'));
    if (last === null || expires === null || Number(expires) <= this.clock.now()) return null;
    return Number(last);
  }

  async touch(sightings: readonly SessionSighting[]): Promise<void> {
    for (let i = 0; i < sightings.length; i += CHUNK) {
      const part = sightings.slice(i, i + CHUNK);
      await this.redis.run((c) =>
        (c as unknown as Commands).portcullisTouchSessions(part.length, ...part.map((x) => this.sessionKey(x.id)), ...part.map((x) => x.at)),
      );
    }
  }
}
