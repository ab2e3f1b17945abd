import type { Clock } from '../../../application/ports/clock';
import type { UsedOAuthFlows } from '../../../application/ports/used-oauth-flows';
import type { RedisConnection } from './redis-connection';
import { keyPart } from './redis-key';

/**
 * Used OAuth flows shared by every replica: `SET key 1 NX PX ttl` is atomic, so of two replicas
 * handling the same callback exactly one wins. Throws StateStoreUnavailableError when Redis
 * cannot answer (the callback then fails closed with 503).
 */
const MIN_TTL_MS = 60_000;

export class RedisUsedOAuthFlows implements UsedOAuthFlows {
  constructor(
    private readonly redis: RedisConnection,
    private readonly clock: Clock,
  ) {}

  async use(id: string, untilMs: number): Promise<boolean> {
    // Redis expires keys on its own clock: a flow used at (or just past) its expiry still keeps its
    // mark for a minute, so a replay a few milliseconds later is refused, not let through by a 1 ms TTL.
    const ttl = Math.max(MIN_TTL_MS, Math.ceil(untilMs - this.clock.now()));
    const answer = await this.redis.run((c) => c.set(`${this.redis.prefix}oauth-flow:${keyPart(id)}`, '1', 'PX', ttl, 'NX'));
    return answer === 'OK';
  }
}
