import type { Clock } from '../../application/ports/clock';
import type { HandoffCodes, HandoffGrant } from '../../application/ports/handoff-codes';
import { StateStoreUnavailableError } from '../../application/ports/state-store-unavailable';
import type { RedisConnection } from '../redis/redis-connection';
import { keyPart } from '../redis/redis-key';
import { parseHandoffGrant } from './handoff-grant-json';

/**
 * Hand-off codes shared by every replica: one key per code (`handoff:<code>`) with a TTL, so Redis
 * forgets them on its own. GET and DEL run in one MULTI (atomic), so of two replicas redeeming the
 * same code exactly one gets it; the stored expiry is checked too (Redis expires on its own clock).
 */
export class RedisHandoffCodes implements HandoffCodes {
  constructor(
    private readonly redis: RedisConnection,
    private readonly clock: Clock,
  ) {}

  private key(code: string): string {
    return `${this.redis.prefix}handoff:${keyPart(code)}`;
  }

  async put(code: string, grant: HandoffGrant, untilMs: number): Promise<void> {
    const ttl = Math.max(1, Math.ceil(untilMs - this.clock.now()));
    await this.redis.run((c) => c.set(this.key(code), JSON.stringify({ grant, until: untilMs }), 'PX', ttl, 'NX'));
  }

  async take(code: string): Promise<HandoffGrant | null> {
    const now = this.clock.now();
    const key = this.key(code);
    const answers = await this.redis.run((c) => c.multi().get(key).del(key).exec());
    if (answers === null) throw new StateStoreUnavailableError('redis');
    const [getError, value] = answers[0];
    if (getError !== null) throw getError;
    if (typeof value !== 'string') return null;
    let stored: { grant?: unknown; until?: unknown };
    try {
      stored = JSON.parse(value) as { grant?: unknown; until?: unknown };
    } catch {
      return null;
    }
    if (typeof stored.until !== 'number' || stored.until <= now) return null;
    return parseHandoffGrant(JSON.stringify(stored.grant));
  }
}
