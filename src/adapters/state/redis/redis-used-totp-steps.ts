import type { Clock } from '../../../application/ports/clock';
import type { UsedTotpSteps } from '../../../application/ports/used-totp-steps';
import type { RedisConnection } from './redis-connection';
import { keyPart } from './redis-key';
import { BoundedExpiringMap } from '../bounded-map';

/** Compare-and-set in one step: of two replicas claiming the same step, exactly one wins. */
const CLAIM = `
local last = tonumber(redis.call('GET', KEYS[1]))
local step = tonumber(ARGV[1])
if last and step <= last then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

interface Commands {
  portcullisClaimStep(key: string, step: number, ttlMs: number): Promise<number>;
}

/**
 * The last TOTP step each account used, shared by every replica (one key per account, with the
 * step's lifetime as TTL). Claims this process has seen are also kept locally, so a Redis that
 * restarted empty cannot make this replica accept a code it already accepted. Throws
 * StateStoreUnavailableError when Redis cannot answer: a code is never accepted unchecked.
 */
export class RedisUsedTotpSteps implements UsedTotpSteps {
  private readonly seen: BoundedExpiringMap<number>;

  constructor(
    private readonly redis: RedisConnection,
    private readonly clock: Clock,
    capacity = 100_000,
  ) {
    this.seen = new BoundedExpiringMap(capacity);
    redis.client.defineCommand('portcullisClaimStep', { numberOfKeys: 1, lua: CLAIM });
  }

  async claim(username: string, step: number, untilMs: number): Promise<boolean> {
    const name = username.toLowerCase();
    const now = this.clock.now();
    const last = this.seen.get(name, now);
    if (last !== undefined && step <= last) return false;
    const ttl = Math.max(1, Math.ceil(untilMs - now));
    const key = `${this.redis.prefix}totp:${keyPart(name)}`;
    const claimed = (await this.redis.run((c) => (c as unknown as Commands).portcullisClaimStep(key, step, ttl))) === 1;
    if (claimed) this.seen.set(name, step, untilMs);
    return claimed;
  }
}
