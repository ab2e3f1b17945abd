import type { AccessTokens } from '../../../application/tokens/access-tokens';
import type { AccessTokenRecord } from '../../../domain/access-token';
import type { RedisConnection } from './redis-connection';
import { keyPart } from './redis-key';
import { appsOf, appsText } from '../access-token-rows';

/**
 * Stores one token. KEYS[1] = its hash, KEYS[2] = its account's index, KEYS[3] = the forget set;
 * ARGV = token hash, id, username, name, apps ('' for every application), created, expires,
 * last used ('' never), revoked ('' not), the time from which it may be forgotten.
 */
const ADD = `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[2], 'username', ARGV[3], 'name', ARGV[4], 'apps', ARGV[5], 'createdAt', ARGV[6], 'expiresAt', ARGV[7], 'lastUsedAt', ARGV[8], 'revokedAt', ARGV[9])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[10], ARGV[1])
return 1
`;

/**
 * Revokes a token of this account that is not revoked yet, and moves its forget time forward if
 * revocation comes before expiry. KEYS[1] = its hash, KEYS[2] = the forget set; ARGV = username,
 * id, time, token hash.
 */
const REVOKE = `
local f = redis.call('HMGET', KEYS[1], 'username', 'id', 'revokedAt')
if f[1] ~= ARGV[1] or f[2] ~= ARGV[2] or f[3] ~= '' then return 0 end
redis.call('HSET', KEYS[1], 'revokedAt', ARGV[3])
local score = redis.call('ZSCORE', KEYS[2], ARGV[4])
if not score or tonumber(ARGV[3]) < tonumber(score) then redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4]) end
return 1
`;

/** Moves last used forward for each token still stored. KEYS = the hashes; ARGV = the times, in the same order. */
const TOUCH = `
for i = 1, #KEYS do
  local last = redis.call('HGET', KEYS[i], 'lastUsedAt')
  if last and (last == '' or tonumber(last) < tonumber(ARGV[i])) then redis.call('HSET', KEYS[i], 'lastUsedAt', ARGV[i]) end
end
return 1
`;

/**
 * Forgets the given tokens whose forget time is before ARGV[1]. KEYS[1] = the forget set, then per
 * token its hash and its account's index; ARGV[2..] = the token hashes. Answers how many it forgot.
 */
const PRUNE = `
local before = tonumber(ARGV[1])
local n = 0
for i = 2, #ARGV do
  local member = ARGV[i]
  local record = KEYS[2 * i - 2]
  local index = KEYS[2 * i - 1]
  local score = redis.call('ZSCORE', KEYS[1], member)
  if score and tonumber(score) < before then
    local id = redis.call('HGET', record, 'id')
    if id and redis.call('HGET', index, id) == member then redis.call('HDEL', index, id) end
    redis.call('DEL', record)
    redis.call('ZREM', KEYS[1], member)
    n = n + 1
  end
end
return n
`;

interface Commands {
  portcullisTokenAdd(record: string, index: string, forget: string, ...args: string[]): Promise<number>;
  portcullisTokenRevoke(record: string, forget: string, username: string, id: string, at: string, hash: string): Promise<number>;
  portcullisTokenTouch(count: number, ...keysThenTimes: string[]): Promise<number>;
  portcullisTokenPrune(count: number, ...keysThenArgs: string[]): Promise<number>;
}

/** How many tokens one touch or prune script call carries. */
const CHUNK = 500;

/**
 * Access tokens in Redis, shared by every replica; durable as far as the server's persistence goes.
 * Layout under the connection's prefix: a hash per token, `token:<keyed hash>` (no TTL: a record
 * stays after expiry or revocation until pruned); a hash per account, `tokens:u:<username>`, of
 * its token ids to their keyed hashes (the account page and revocation read it, never a scan);
 * and one sorted set, `tokens:forget`, of every token by the time from which it may be forgotten
 * (its expiry, or its revocation if earlier), which prune reads from the start.
 */
export class RedisAccessTokens implements AccessTokens {
  constructor(private readonly redis: RedisConnection) {
    redis.client.defineCommand('portcullisTokenAdd', { numberOfKeys: 3, lua: ADD });
    redis.client.defineCommand('portcullisTokenRevoke', { numberOfKeys: 2, lua: REVOKE });
    redis.client.defineCommand('portcullisTokenTouch', { lua: TOUCH });
    redis.client.defineCommand('portcullisTokenPrune', { lua: PRUNE });
  }

  private recordKey(hash: string): string {
    return `${this.redis.prefix}token:${keyPart(hash)}`;
  }

  private indexKey(username: string): string {
    return `${this.redis.prefix}tokens:u:${keyPart(username)}`;
  }

  private get forgetKey(): string {
    return `${this.redis.prefix}tokens:forget`;
  }

  private commands<T>(run: (c: Commands) => Promise<T>): Promise<T> {
    return this.redis.run((c) => run(c as unknown as Commands));
  }

  async add(r: AccessTokenRecord): Promise<void> {
    const forgetFrom = r.revokedAt === null ? r.expiresAt : Math.min(r.expiresAt, r.revokedAt);
    await this.commands((c) =>
      c.portcullisTokenAdd(
        this.recordKey(r.hash),
        this.indexKey(r.username),
        this.forgetKey,
        r.hash,
        r.id,
        r.username,
        r.name,
        appsText(r.apps) ?? '',
        String(r.createdAt),
        String(r.expiresAt),
        r.lastUsedAt === null ? '' : String(r.lastUsedAt),
        r.revokedAt === null ? '' : String(r.revokedAt),
        String(forgetFrom),
      ),
    );
  }

  async accounts(now: number): Promise<string[]> {
    // The forget set scores a live token by its expiry (revocation moves the score to its time, in the past).
    const hashes = await this.redis.run((c) => c.zrangebyscore(this.forgetKey, `(${now}`, '+inf'));
    const found = new Set<string>();
    for (let i = 0; i < hashes.length; i += CHUNK) {
      const part = hashes.slice(i, i + CHUNK);
      const fields = await this.redis.run(async (c) => {
        const pipeline = c.pipeline();
        for (const hash of part) pipeline.hmget(this.recordKey(hash), 'username', 'revokedAt');
        return ((await pipeline.exec()) ?? []).map(([e, v]) => {
          if (e !== null) throw e;
          return v as (string | null)[];
        });
      });
      for (const [username, revokedAt] of fields) if (username !== null && username !== undefined && revokedAt === '') found.add(username);
    }
    return [...found];
  }

  async findByHash(hash: string): Promise<AccessTokenRecord | null> {
    const fields = await this.redis.run((c) => c.hgetall(this.recordKey(hash)));
    return fields.id === undefined ? null : recordOf(hash, fields);
  }

  async list(username: string): Promise<AccessTokenRecord[]> {
    const index = await this.redis.run((c) => c.hgetall(this.indexKey(username)));
    const entries = Object.entries(index);
    if (entries.length === 0) return [];
    const hashes = await this.redis.run(async (c) => {
      const pipeline = c.pipeline();
      for (const [, hash] of entries) pipeline.hgetall(this.recordKey(hash));
      const results = (await pipeline.exec()) ?? [];
      return results.map(([e, v]) => {
        if (e !== null) throw e;
        return v as Record<string, string>;
      });
    });
    const found: AccessTokenRecord[] = [];
    hashes.forEach((fields, i) => {
      const [id, hash] = entries[i];
      // An index entry outlived by its record, or a record replaced under the same hash, is not listed.
      if (fields.id === id && fields.username === username) found.push(recordOf(hash, fields));
    });
    return found.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  }

  async revoke(username: string, id: string, at: number): Promise<boolean> {
    const hash = await this.redis.run((c) => c.hget(this.indexKey(username), id));
    if (hash === null) return false;
    return (await this.commands((c) => c.portcullisTokenRevoke(this.recordKey(hash), this.forgetKey, username, id, String(at), hash))) === 1;
  }

  async touch(used: ReadonlyMap<string, number>): Promise<void> {
    const all = [...used];
    for (let i = 0; i < all.length; i += CHUNK) {
      const part = all.slice(i, i + CHUNK);
      await this.commands((c) => c.portcullisTokenTouch(part.length, ...part.map(([hash]) => this.recordKey(hash)), ...part.map(([, at]) => String(at))));
    }
  }

  async prune(before: number): Promise<void> {
    for (;;) {
      const members = await this.redis.run((c) => c.zrangebyscore(this.forgetKey, '-inf', `(${before}`, 'LIMIT', 0, CHUNK));
      if (members.length === 0) return;
      const usernames = await this.redis.run(async (c) => {
        const pipeline = c.pipeline();
        for (const hash of members) pipeline.hget(this.recordKey(hash), 'username');
        const results = (await pipeline.exec()) ?? [];
        return results.map(([e, v]) => {
          if (e !== null) throw e;
          return v as string | null;
        });
      });
      const keys = [this.forgetKey];
      members.forEach((hash, i) => {
        const record = this.recordKey(hash);
        const owner = usernames[i];
        // A record already gone has no account to look at: its own key stands in (the script finds no id in it).
        keys.push(record, owner === null ? record : this.indexKey(owner));
      });
      const forgotten = await this.commands((c) => c.portcullisTokenPrune(keys.length, ...keys, String(before), ...members));
      if (members.length < CHUNK || forgotten === 0) return;
    }
  }
}

function recordOf(hash: string, f: Record<string, string>): AccessTokenRecord {
  return Object.freeze({
    id: f.id,
    hash,
    username: f.username,
    name: f.name,
    apps: f.apps === '' || f.apps === undefined ? null : appsOf(f.apps),
    createdAt: Number(f.createdAt),
    expiresAt: Number(f.expiresAt),
    lastUsedAt: f.lastUsedAt === '' || f.lastUsedAt === undefined ? null : Number(f.lastUsedAt),
    revokedAt: f.revokedAt === '' || f.revokedAt === undefined ? null : Number(f.revokedAt),
  });
}
