import type { Account } from '../../domain/account';

/**
 * `changed`: the directory took the new password. `invalid_credentials`: it refused the current
 * one. `refused`: it refused the new one (its password policy: too short, in the history, changed
 * too recently, or the person may not change it).
 */
export type DirectoryPasswordChange = 'changed' | 'invalid_credentials' | 'refused';

/** Password changes in the LDAP directory (LDAP_PASSWORD_CHANGE), made as the person. */
export interface DirectoryPasswords {
  /**
   * Changes the password of `account` (an account the directory store returned) from `current` to
   * `next`, bound as the person with `current`. Once `changed`, the store's answers for the account
   * (its credential version) are the entry as it is after the change. Rejects with
   * UserStoreUnavailableError when the directory cannot be reached.
   */
  change(account: Account, current: string, next: string): Promise<DirectoryPasswordChange>;
}
