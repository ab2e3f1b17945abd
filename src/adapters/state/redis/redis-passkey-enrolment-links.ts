import type { Clock } from '../../../application/ports/clock';
import type { PasskeyEnrolmentLinks } from '../../../application/passkeys/passkey-enrolment-links';
import type { RedisConnection } from './redis-connection';
import { RedisSingleUseValues } from './redis-single-use-values';

/**
 * Enrolment links shared by every replica: one key per link (`passkey-enrol:<code>`) with a TTL,
 * taken atomically, so of two replicas redeeming one link exactly one gets it.
 */
export class RedisPasskeyEnrolmentLinks implements PasskeyEnrolmentLinks {
  private readonly links: RedisSingleUseValues;

  constructor(redis: RedisConnection, clock: Clock) {
    this.links = new RedisSingleUseValues(redis, clock, 'passkey-enrol', 'username');
  }

  async put(code: string, username: string, untilMs: number): Promise<void> {
    await this.links.put(code, username, untilMs);
  }

  async take(code: string): Promise<string | null> {
    const username = await this.links.take(code);
    return typeof username === 'string' ? username : null;
  }
}
