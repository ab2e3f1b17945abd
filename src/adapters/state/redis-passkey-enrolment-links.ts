import type { Clock } from '../../application/ports/clock';
import type { PasskeyEnrolmentLinks } from '../../application/ports/passkey-enrolment-links';
import { StateStoreUnavailableError } from '../../application/ports/state-store-unavailable';
import type { RedisConnection } from '../redis/redis-connection';
import { keyPart } from '../redis/redis-key';

/**
 * Enrolment links shared by every replica: one key per link (`passkey-enrol:<code>`) with a TTL.
 * GET and DEL run in one MULTI (atomic), so of two replicas redeeming one link exactly one gets it;
 * the stored expiry is checked too (Redis expires on its own clock).
 */
export class RedisPasskeyEnrolmentLinks implements PasskeyEnrolmentLinks {
  constructor(
    private readonly redis: RedisConnection,
    private readonly clock: Clock,
  ) {}

  private key(code: string): string {
    return `${this.redis.prefix}passkey-enrol:${keyPart(code)}`;
  }

  async put(code: string, username: string, untilMs: number): Promise<void> {
    const ttl = Math.max(1, Math.ceil(untilMs - this.clock.now()));
    await this.redis.run((c) => c.set(this.key(code), JSON.stringify({ username, until: untilMs }), 'PX', ttl, 'NX'));
  }

  async take(code: string): Promise<string | null> {
    const now = this.clock.now();
    const key = this.key(code);
    const answers = await this.redis.run((c) => c.multi().get(key).del(key).exec());
    if (answers === null) throw new StateStoreUnavailableError('redis');
    const [getError, value] = answers[0];
    if (getError !== null) throw getError;
    if (typeof value !== 'string') return null;
    let stored: { username?: unknown; until?: unknown };
    try {
      stored = JSON.parse(value) as { username?: unknown; until?: unknown };
    } catch {
      return null;
    }
    if (typeof stored.until !== 'number' || stored.until <= now || typeof stored.username !== 'string') return null;
    return stored.username;
  }
}
