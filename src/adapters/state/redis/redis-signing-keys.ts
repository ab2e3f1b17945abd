import type { SigningKeys } from '../../../application/oidc/signing-keys';
import type { RedisConnection } from './redis-connection';

/**
 * The signing key set shared by every replica on Redis: one key (`oidc-signing-keys` under the
 * gateway's prefix), no TTL. Created with SET NX, so of two replicas starting together exactly
 * one set is stored and both read it back. The composition wraps this store in
 * AesGcmSigningKeys, so Redis (and its RDB/AOF files) hold the set sealed.
 */
export class RedisSigningKeys implements SigningKeys {
  constructor(private readonly redis: RedisConnection) {}

  async getOrCreate(create: () => string): Promise<string> {
    const key = this.key();
    const stored = await this.redis.run((c) => c.get(key));
    if (stored !== null) return stored;
    const candidate = create();
    await this.redis.run((c) => c.set(key, candidate, 'NX'));
    // Whether ours or another replica's won, the stored set is the one to use (never deleted, so present).
    const winner = await this.redis.run((c) => c.get(key));
    if (winner === null) throw new Error('the signing key set vanished right after it was stored');
    return winner;
  }

  async replace(keySet: string): Promise<void> {
    await this.redis.run((c) => c.set(this.key(), keySet));
  }

  private key(): string {
    return `${this.redis.prefix}oidc-signing-keys`;
  }
}
