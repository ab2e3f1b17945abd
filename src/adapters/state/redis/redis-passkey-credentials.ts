import type { PasskeyCredentials, PasskeyRemoval } from '../../../application/passkeys/passkey-credentials';
import type { Passkey } from '../../../domain/passkey';
import type { RedisConnection } from './redis-connection';
import { keyPart } from './redis-key';

/**
 * Passkeys shared by every replica. Layout: one hash per passkey, `passkey:<id>` (its fields, no
 * TTL: a passkey lives until its owner removes it), and one sorted set per account,
 * `passkeys:<username>`, of its ids by creation time. Every change is one Lua script, so the
 * owner check, the per-account limit, the passkey an account must keep and the counter's
 * compare-and-set are atomic across replicas.
 * Throws StateStoreUnavailableError when Redis cannot answer.
 */
const ADD = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'id', ARGV[2], 'username', ARGV[3], 'name', ARGV[4], 'publicKey', ARGV[5], 'counter', ARGV[6], 'transports', ARGV[7], 'createdAt', ARGV[8], 'lastUsedAt', '')
redis.call('ZADD', KEYS[2], ARGV[8], ARGV[2])
return 1
`;
const RENAME = `
if redis.call('HGET', KEYS[1], 'username') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'name', ARGV[2])
return 1
`;
const REMOVE = `
if redis.call('HGET', KEYS[1], 'username') ~= ARGV[1] then return 0 end
if redis.call('ZCARD', KEYS[2]) - 1 < tonumber(ARGV[3]) then return 2 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
`;
const USE = `
local counter = redis.call('HGET', KEYS[1], 'counter')
if not counter or counter ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'counter', ARGV[2], 'lastUsedAt', ARGV[3])
return 1
`;

interface Commands {
  portcullisPasskeyAdd(cred: string, user: string, ...args: (string | number)[]): Promise<number>;
  portcullisPasskeyRename(cred: string, username: string, name: string): Promise<number>;
  portcullisPasskeyRemove(cred: string, user: string, username: string, id: string, keep: number): Promise<number>;
  portcullisPasskeyUse(cred: string, expected: string, counter: string, at: string): Promise<number>;
}

export class RedisPasskeyCredentials implements PasskeyCredentials {
  constructor(private readonly redis: RedisConnection) {
    redis.client.defineCommand('portcullisPasskeyAdd', { numberOfKeys: 2, lua: ADD });
    redis.client.defineCommand('portcullisPasskeyRename', { numberOfKeys: 1, lua: RENAME });
    redis.client.defineCommand('portcullisPasskeyRemove', { numberOfKeys: 2, lua: REMOVE });
    redis.client.defineCommand('portcullisPasskeyUse', { numberOfKeys: 1, lua: USE });
  }

  private credKey(id: string): string {
    return `${this.redis.prefix}passkey:${keyPart(id)}`;
  }

  private userKey(username: string): string {
    return `${this.redis.prefix}passkeys:${keyPart(username)}`;
  }

  private commands<T>(run: (c: Commands) => Promise<T>): Promise<T> {
    return this.redis.run((c) => run(c as unknown as Commands));
  }

  async add(p: Passkey, max: number): Promise<boolean> {
    const answer = await this.commands((c) =>
      c.portcullisPasskeyAdd(
        this.credKey(p.id),
        this.userKey(p.username),
        max,
        p.id,
        p.username,
        p.name,
        p.publicKey,
        String(p.counter),
        p.transports.join(' '),
        String(p.createdAt),
      ),
    );
    return answer === 1;
  }

  async find(id: string): Promise<Passkey | null> {
    const fields = await this.redis.run((c) => c.hgetall(this.credKey(id)));
    // A hashed key part could in principle be shared by two long ids: the stored id must match.
    return fields.id === id ? passkeyOfHash(fields) : null;
  }

  async list(username: string): Promise<Passkey[]> {
    const ids = await this.redis.run((c) => c.zrange(this.userKey(username), '0', '-1'));
    if (ids.length === 0) return [];
    const hashes = await this.redis.run(async (c) => {
      const pipeline = c.pipeline();
      for (const id of ids) pipeline.hgetall(this.credKey(id));
      return (await pipeline.exec()) ?? [];
    });
    return hashes
      .map(([e, fields]) => (e === null ? (fields as Record<string, string>) : {}))
      .filter((fields) => fields.username === username)
      .map(passkeyOfHash);
  }

  async rename(username: string, id: string, name: string): Promise<boolean> {
    return (await this.commands((c) => c.portcullisPasskeyRename(this.credKey(id), username, name))) === 1;
  }

  async remove(username: string, id: string, keep = 0): Promise<PasskeyRemoval> {
    const answer = await this.commands((c) => c.portcullisPasskeyRemove(this.credKey(id), this.userKey(username), username, id, keep));
    return answer === 1 ? 'removed' : answer === 2 ? 'kept' : 'not_found';
  }

  async recordUse(id: string, expected: number, counter: number, at: number): Promise<boolean> {
    return (await this.commands((c) => c.portcullisPasskeyUse(this.credKey(id), String(expected), String(counter), String(at)))) === 1;
  }
}

function passkeyOfHash(f: Record<string, string>): Passkey {
  return Object.freeze({
    id: f.id,
    username: f.username,
    name: f.name,
    publicKey: f.publicKey,
    counter: Number(f.counter),
    transports: f.transports === '' || f.transports === undefined ? [] : f.transports.split(' '),
    createdAt: Number(f.createdAt),
    lastUsedAt: f.lastUsedAt === '' || f.lastUsedAt === undefined ? null : Number(f.lastUsedAt),
  });
}
