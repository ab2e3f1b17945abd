import type { Account } from '../../domain/account';

/**
 * Short, keyed fingerprints of an account's credential (its credential version and TOTP secret),
 * carried by sessions so that a password or second factor changed by an administrator ends the
 * sessions made with the old one. A fingerprint reveals nothing about the credential.
 */
export interface CredentialFingerprints {
  /**
   * The fingerprint of `account`'s current credential: equal for equal credential versions and TOTP
   * secrets, different (with overwhelming probability) when either changes; independent of the
   * account's name, e-mail and groups. Never throws.
   */
  of(account: Account): string;
}
