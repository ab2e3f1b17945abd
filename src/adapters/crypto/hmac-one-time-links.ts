import { createHmac } from 'node:crypto';
import type { PasswordLinks } from '../../application/invitations/password-links';
import type { PasskeyEnrolmentLinks } from '../../application/passkeys/passkey-enrolment-links';
import { deriveKey } from './key-derivation';

/** What both kinds of single-use link share: a code in, a username out, once. */
type OneTimeLinks = PasskeyEnrolmentLinks & PasswordLinks;

/**
 * Puts a keyed hash of each link's code (HMAC-SHA256 under a key derived from SECRET for one
 * `purpose`) in front of the store: a copy of the database or of Redis (a backup, a replica) holds
 * no code that could be redeemed, and without SECRET no guess can be checked against it offline.
 * Each kind of link has its own purpose, so kinds may share one table (ADR 0047) and a code of one
 * kind never redeems as another.
 */
export class HmacOneTimeLinks implements OneTimeLinks {
  private readonly key: Buffer;

  constructor(
    private readonly store: OneTimeLinks,
    secret: string,
    purpose: string,
  ) {
    this.key = deriveKey(secret, purpose);
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

/** The first-passkey enrolment links (issue 16) in front of their store. */
export class HmacPasskeyEnrolmentLinks extends HmacOneTimeLinks {
  constructor(store: OneTimeLinks, secret: string) {
    super(store, secret, 'passkey-enrolment-link v1');
  }
}

/** The set-password links of invitations and resets (issue 36), in the same store under a key of their own. */
export class HmacPasswordLinks extends HmacOneTimeLinks {
  constructor(store: OneTimeLinks, secret: string) {
    super(store, secret, 'password-link v1');
  }
}
