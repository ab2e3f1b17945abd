import type { Account } from '../../domain/account';

/** Where a listed account comes from: the USERS variable, the users file, or the directory. */
export type AccountSource = 'users' | 'file' | 'ldap';

export interface ListedAccount {
  readonly account: Account;
  readonly source: AccountSource;
  /** A disabled users-file account: it cannot log in, and the console lists it to enable it again. */
  readonly disabled?: boolean;
}

/**
 * Every account the configured user stores hold, for the admin console (issue 36). A store that
 * cannot enumerate its accounts (LDAP, for now) lists none. Throws StateStoreUnavailableError-like
 * errors only when a store is down.
 */
export interface AccountDirectory {
  list(): Promise<readonly ListedAccount[]>;
}
