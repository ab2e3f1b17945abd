import type { Clock } from '../../../application/ports/clock';
import { StateStoreUnavailableError } from '../../../application/ports/state-store-unavailable';
import type { RedisConnection } from './redis-connection';
import { keyPart } from './redis-key';

/**
 * Values taken at most once, shared by every replica (hand-off codes, passkey enrolment links): one
 * key per code (`<namespace>:<code>`) holding `{"<field>": value, "until": ms}` with a TTL, so Redis
 * forgets them on its own. GET and DEL run in one MULTI (atomic), so of two replicas taking the same
 * code exactly one gets it; the stored expiry is checked too (Redis expires on its own clock).
 */
export class RedisSingleUseValues {
  constructor(
    private readonly redis: RedisConnection,
    private readonly clock: Clock,
    private readonly namespace: string,
    private readonly field: string,
  ) {}

  private key(code: string): string {
    return `${this.redis.prefix}${this.namespace}:${keyPart(code)}`;
  }

  /** Stores `value` under `code` until `untilMs`, unless the code is already taken (NX). */
  async put(code: string, value: unknown, untilMs: number): Promise<void> {
    const ttl = Math.max(1, Math.ceil(untilMs - this.clock.now()));
    await this.redis.run((c) => c.set(this.key(code), JSON.stringify({ [this.field]: value, until: untilMs }), 'PX', ttl, 'NX'));
  }

  /** Removes the code and resolves its value when it was there and unexpired, else `undefined`. */
  async take(code: string): Promise<unknown> {
    const now = this.clock.now();
    const key = this.key(code);
    const answers = await this.redis.run((c) => c.multi().get(key).del(key).exec());
    if (answers === null) throw new StateStoreUnavailableError('redis');
    const [getError, value] = answers[0];
    if (getError !== null) throw getError;
    if (typeof value !== 'string') return undefined;
    let stored: Record<string, unknown>;
    try {
      stored = JSON.parse(value) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    if (typeof stored !== 'object' || stored === null || typeof stored.until !== 'number' || stored.until <= now) return undefined;
    return stored[this.field];
  }
}
