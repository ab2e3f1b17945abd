import type { PasskeySecondFactorChoices } from '../../../application/passkeys/passkey-second-factor-choices';
import type { RedisConnection } from './redis-connection';
import { keyPart } from './redis-key';

/** Second-factor choices shared by every replica: one set, `passkey-second-factor`, of the usernames that chose a passkey. */
export class RedisPasskeySecondFactorChoices implements PasskeySecondFactorChoices {
  constructor(private readonly redis: RedisConnection) {}

  private get key(): string {
    return `${this.redis.prefix}passkey-second-factor`;
  }

  async chosen(username: string): Promise<boolean> {
    return (await this.redis.run((c) => c.sismember(this.key, keyPart(username)))) === 1;
  }

  async choose(username: string, passkey: boolean): Promise<void> {
    await this.redis.run((c) => (passkey ? c.sadd(this.key, keyPart(username)) : c.srem(this.key, keyPart(username))));
  }
}
