import type { OidcArtifact, OidcArtifacts } from '../../../application/oidc/oidc-artifacts';
import type { RedisConnection } from './redis-connection';
import { keyPart } from './redis-key';
import { indexedFields, readRecord } from '../oidc-artifact-record';

/**
 * Saves one record in one step. KEYS: the record hash, its grant's set ('' when none), its uid
 * index ('' when none), its user-code index ('' when none). ARGV: payload JSON, TTL in ms ('0':
 * none), grant id ('' when none), id. The grant set lives as long as its longest-lived member
 * (no TTL once a member has none), so revokeByGrantId always finds every member still alive.
 */
const SAVE = `
local ttl = tonumber(ARGV[2])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'p', ARGV[1], 'g', ARGV[3])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
if KEYS[2] ~= '' then
  local existed = redis.call('EXISTS', KEYS[2]) == 1
  local current = redis.call('PTTL', KEYS[2])
  redis.call('SADD', KEYS[2], KEYS[1])
  if ttl == 0 then
    redis.call('PERSIST', KEYS[2])
  elseif not existed or (current >= 0 and current < ttl) then
    redis.call('PEXPIRE', KEYS[2], ttl)
  end
end
for i = 3, 4 do
  if KEYS[i] ~= '' then
    if ttl > 0 then redis.call('SET', KEYS[i], ARGV[4], 'PX', ttl) else redis.call('SET', KEYS[i], ARGV[4]) end
  end
end
return 1
`;

/**
 * Marks a record consumed without touching its payload or its TTL, unless it is gone or already
 * consumed: 1 when this call marked it, 0 otherwise (a script runs alone, so one caller wins).
 */
const CONSUME = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSETNX', KEYS[1], 'c', ARGV[1])
`;

/**
 * Deletes every member of a grant's set that still belongs to that grant (a member may since have
 * been saved again under another grant), then the set. The members are record keys named in the
 * set, not in KEYS: fine on a single Redis or Sentinel (what REDIS_URL supports), not on a Cluster.
 */
const REVOKE = `
local members = redis.call('SMEMBERS', KEYS[1])
for _, key in ipairs(members) do
  if redis.call('HGET', key, 'g') == ARGV[1] then redis.call('DEL', key) end
end
redis.call('DEL', KEYS[1])
return #members
`;

interface Commands {
  portcullisOidcSave(
    record: string,
    grant: string,
    uid: string,
    userCode: string,
    payload: string,
    ttlMs: number,
    grantId: string,
    id: string,
  ): Promise<number>;
  portcullisOidcConsume(record: string, nowSeconds: number): Promise<number>;
  portcullisOidcRevoke(grant: string, grantId: string): Promise<number>;
}

/**
 * OpenID Connect artifacts shared by every replica on Redis. Layout (under the gateway's prefix):
 * `oidc:<kind>:<id>` a hash (`p` payload JSON, `c` consumed, `g` grant id) with the record's TTL;
 * `oidc-grant:<grantId>` the set of its records' keys; `oidc-uid:<kind>:<uid>` and
 * `oidc-user-code:<kind>:<code>` the id of the record holding it, with the record's TTL. Lookups
 * through an index check the record itself, so a stale index entry never answers. Throws
 * StateStoreUnavailableError when Redis cannot answer.
 */
export class RedisOidcArtifacts implements OidcArtifacts {
  constructor(private readonly redis: RedisConnection) {
    redis.client.defineCommand('portcullisOidcSave', { numberOfKeys: 4, lua: SAVE });
    redis.client.defineCommand('portcullisOidcConsume', { numberOfKeys: 1, lua: CONSUME });
    redis.client.defineCommand('portcullisOidcRevoke', { numberOfKeys: 1, lua: REVOKE });
  }

  async save(kind: string, id: string, payload: OidcArtifact, expiresInSeconds: number | undefined): Promise<void> {
    const { grantId, uid, userCode } = indexedFields(payload);
    // Redis has no "expires now": a record saved already expired lives one millisecond.
    const ttl = expiresInSeconds === undefined || !Number.isFinite(expiresInSeconds) ? 0 : Math.max(1, Math.ceil(expiresInSeconds * 1000));
    const keys = [
      this.record(kind, id),
      grantId === null ? '' : this.grant(grantId),
      uid === null ? '' : this.index('oidc-uid', kind, uid),
      userCode === null ? '' : this.index('oidc-user-code', kind, userCode),
    ] as const;
    await this.redis.run((c) => (c as unknown as Commands).portcullisOidcSave(...keys, JSON.stringify(payload), ttl, grantId ?? '', id));
  }

  async find(kind: string, id: string): Promise<OidcArtifact | undefined> {
    return this.read(kind, id, null);
  }

  async findByUid(kind: string, uid: string): Promise<OidcArtifact | undefined> {
    const id = await this.redis.run((c) => c.get(this.index('oidc-uid', kind, uid)));
    return id === null ? undefined : this.read(kind, id, (p) => p.uid === uid);
  }

  async findByUserCode(kind: string, userCode: string): Promise<OidcArtifact | undefined> {
    const id = await this.redis.run((c) => c.get(this.index('oidc-user-code', kind, userCode)));
    return id === null ? undefined : this.read(kind, id, (p) => p.userCode === userCode);
  }

  async consume(kind: string, id: string, nowSeconds: number): Promise<boolean> {
    return (await this.redis.run((c) => (c as unknown as Commands).portcullisOidcConsume(this.record(kind, id), nowSeconds))) === 1;
  }

  async destroy(kind: string, id: string): Promise<void> {
    // The grant set may keep naming the key: revocation checks each member's grant before deleting.
    await this.redis.run((c) => c.del(this.record(kind, id)));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.redis.run((c) => (c as unknown as Commands).portcullisOidcRevoke(this.grant(grantId), grantId));
  }

  private async read(kind: string, id: string, matches: ((payload: OidcArtifact) => boolean) | null): Promise<OidcArtifact | undefined> {
    const [payload, consumed] = await this.redis.run((c) => c.hmget(this.record(kind, id), 'p', 'c'));
    if (payload === null) return undefined;
    const record = readRecord(payload, consumed === null ? null : Number(consumed));
    return matches === null || matches(record) ? record : undefined;
  }

  private record(kind: string, id: string): string {
    return `${this.redis.prefix}oidc:${kind}:${keyPart(id)}`;
  }

  private grant(grantId: string): string {
    return `${this.redis.prefix}oidc-grant:${keyPart(grantId)}`;
  }

  private index(name: string, kind: string, value: string): string {
    return `${this.redis.prefix}${name}:${kind}:${keyPart(value)}`;
  }
}
