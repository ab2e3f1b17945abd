import { createHmac } from 'node:crypto';
import type { PasswordLinks } from '../../application/invitations/password-links';
import { deriveKey } from './key-derivation';

/**
 * Puts a keyed hash of each set-password code in front of the store, like the first-passkey links'
 * (HmacPasskeyEnrolmentLinks), under a key of its own: the two kinds may share one table (the
 * enrolment links' on every backend, ADR 0047) and a code of one kind never redeems as the other.
 */
export class HmacPasswordLinks implements PasswordLinks {
  private readonly key: Buffer;

  constructor(
    private readonly store: PasswordLinks,
    secret: string,
  ) {
    this.key = deriveKey(secret, 'password-link v1');
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
