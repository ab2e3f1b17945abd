import type { Clock } from '../../../application/ports/clock';
import type { HandoffCodes, HandoffGrant } from '../../../application/handoff/handoff-codes';
import type { RedisConnection } from './redis-connection';
import { RedisSingleUseValues } from './redis-single-use-values';
import { parseHandoffGrant } from '../handoff-grant-json';

/**
 * Hand-off codes shared by every replica: one key per code (`handoff:<code>`) with a TTL, so Redis
 * forgets them on its own, taken atomically, so of two replicas redeeming the same code exactly
 * one gets it.
 */
export class RedisHandoffCodes implements HandoffCodes {
  private readonly codes: RedisSingleUseValues;

  constructor(redis: RedisConnection, clock: Clock) {
    this.codes = new RedisSingleUseValues(redis, clock, 'handoff', 'grant');
  }

  async put(code: string, grant: HandoffGrant, untilMs: number): Promise<void> {
    await this.codes.put(code, grant, untilMs);
  }

  async take(code: string): Promise<HandoffGrant | null> {
    const grant = await this.codes.take(code);
    return grant === undefined ? null : parseHandoffGrant(JSON.stringify(grant));
  }
}
