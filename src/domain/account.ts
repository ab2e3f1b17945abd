/** A person who can log in with a password, as a user store knows them. */
export interface Account {
  /** Stable login name; what `Remote-User` carries. */
  readonly username: string;
  readonly email: string;
  readonly name: string;
  readonly groups: readonly string[];
  /** Base32 TOTP secret when the account has a second factor. */
  readonly totpSecret?: string;
  /**
   * Opaque fingerprint of the current credential (for a local store, the password hash itself).
   * Caches of verified credentials compare it so that a password change drops them.
   */
  readonly credentialVersion: string;
  /**
   * A file-store account with no password (issue 16): it signs in with a passkey only. A password
   * or HTTP Basic login for it is refused like a wrong password.
   */
  readonly passkeyOnly?: boolean;
  /**
   * A service account (issue 32): a users-file entry for a machine, with groups but no password,
   * TOTP secret or passkey. It never logs in (a password, Basic or passkey login for it is refused
   * like a wrong password) and acts only through its access tokens.
   */
  readonly service?: boolean;
}

export const hasTotp = (account: Account): boolean => account.totpSecret !== undefined && account.totpSecret !== '';

/**
 * The e-mail a local account is known by: the username itself when it is an address,
 * otherwise `<username>@<domain>`.
 */
export function localAccountEmail(username: string, domain: string): string {
  return username.includes('@') ? username.toLowerCase() : `${username.toLowerCase()}@${domain}`;
}

/** What a passkey-only account carries as its credential version: no password hash exists to fingerprint. */
export const PASSKEY_ONLY_CREDENTIAL = 'passkey-only';

/** What a service account carries as its credential version: it has no credential of its own but its tokens. */
export const SERVICE_ACCOUNT_CREDENTIAL = 'service-account';
