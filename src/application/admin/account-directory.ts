import type { Account } from '../../domain/account';

/** Where a listed account comes from: the USERS variable, the users file, or the directory. */
export type AccountSource = 'users' | 'file' | 'ldap';

export interface ListedAccount {
  readonly account: Account;
  readonly source: AccountSource;
  /** A disabled users-file account: it cannot log in, and the console lists it to enable it again. */
  readonly disabled?: boolean;
}

/** Every account listed, and the sources that held more than the list's bound (LDAP reads at most 1000). */
export interface AccountListing {
  readonly accounts: readonly ListedAccount[];
  readonly truncated: readonly AccountSource[];
}

/**
 * Every account the configured user stores hold, for the admin console (issue 36). The LDAP
 * directory is read in pages up to a bound; its people are read-only. Throws
 * UserStoreUnavailableError-like errors only when a store is down.
 */
export interface AccountDirectory {
  /** The accounts, a name held by an earlier store shadowing it in a later one (as at login). */
  list(): Promise<readonly ListedAccount[]>;
  /** The same accounts, and which sources were cut at their bound. */
  listing(): Promise<AccountListing>;
}
