import { createHmac } from 'node:crypto';
import type { Account } from '../../domain/account';
import type { CredentialFingerprints } from '../../application/ports/credential-fingerprints';
import { deriveKey } from './key-derivation';

/**
 * HMAC-SHA256 of the credential version (the bcrypt hash, or the directory's change stamp) and the
 * TOTP secret, under a key derived from SECRET, cut to 128 bits. Keyed, so a cookie that leaked
 * (it is encrypted anyway) cannot be used to test guesses of a hash; cut, since it only has to tell
 * one credential of one account from the next.
 */
export class HmacCredentialFingerprints implements CredentialFingerprints {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = deriveKey(secret, 'credential-fingerprint v1');
  }

  of(account: Account): string {
    return createHmac('sha256', this.key)
      .update(account.credentialVersion)
      .update('\0')
      .update(account.totpSecret ?? '')
      .digest()
      .subarray(0, 16)
      .toString('base64url');
  }
}
