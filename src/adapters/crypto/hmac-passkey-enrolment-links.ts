import { createHmac } from 'node:crypto';
import type { PasskeyEnrolmentLinks } from '../../application/passkeys/passkey-enrolment-links';
import { deriveKey } from './key-derivation';

/**
 * Puts a keyed hash of each enrolment code (HMAC-SHA256 under a key derived from SECRET) in front
 * of the store: a copy of the database or of Redis (a backup, a replica) holds no code that could
 * be redeemed, and without SECRET no guess can be checked against it offline.
 */
export class HmacPasskeyEnrolmentLinks implements PasskeyEnrolmentLinks {
  private readonly key: Buffer;

  constructor(
    private readonly store: PasskeyEnrolmentLinks,
    secret: string,
  ) {
    this.key = deriveKey(secret, 'passkey-enrolment-link v1');
  }

  private hashOf(code: string): string {
    return createHmac('sha256', this.key).update(code).digest('base64url');
  }

  put(code: string, username: string, untilMs: number): Promise<void> {
    return this.store.put(this.hashOf(code), username, untilMs);
  }

  take(code: string): Promise<string | null> {
    return this.store.take(this.hashOf(code));
  }
}
