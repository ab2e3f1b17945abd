import { createHmac, randomBytes } from 'node:crypto';
import { TOKEN_PREFIX, TOKEN_RANDOM_BYTES } from '../../domain/access-token';
import type { TokenSecrets } from '../../application/tokens/token-secrets';
import { deriveKey } from './key-derivation';

/**
 * Token secrets from the system's CSPRNG, stored as HMAC-SHA256 under a key derived from SECRET:
 * a copy of the store yields neither a usable token nor a way to test guesses without SECRET.
 */
export class HmacTokenSecrets implements TokenSecrets {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = deriveKey(secret, 'access-token v1');
  }

  issue(): { token: string; hash: string } {
    const token = `${TOKEN_PREFIX}${randomBytes(TOKEN_RANDOM_BYTES).toString('base64url')}`;
    return { token, hash: this.hashOf(token) };
  }

  hashOf(token: string): string {
    return createHmac('sha256', this.key).update(token).digest('base64url');
  }
}
