import type { AccountSource } from '../admin/account-directory';

/** Where the password of an account is kept, as the self-service password change needs to know it. */
export interface PasswordSources {
  /**
   * The store that holds `username` (case-insensitive) now, the first of USERS, the users file and
   * LDAP that knows it (as at login), or null when none does. Rejects with UserStoreUnavailableError
   * when a store that would decide cannot answer.
   */
  sourceOf(username: string): Promise<AccountSource | null>;
  /**
   * Reads the users file again, so that a change just written to it is in force (for logins and
   * session checks) when this resolves. Resolves at once without a users file.
   */
  reloadFile(): Promise<void>;
}
