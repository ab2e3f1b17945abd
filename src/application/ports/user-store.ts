import type { Account } from '../../domain/account';
import type { Awaitable } from './awaitable';

/** Where accounts that log in with a password live (USERS, a file, LDAP, ...). */
export interface UserStore {
  /**
   * Finds the account whose username or e-mail equals `login`, compared case-insensitively.
   * Resolves `null` when there is no such account (or it is disabled).
   * Rejects with {@link UserStoreUnavailableError} when the backing service cannot be reached.
   */
  findAccount(login: string): Awaitable<Account | null>;

  /**
   * Checks `password` against the account this store returned. Resolves false on a mismatch;
   * rejects with {@link UserStoreUnavailableError} when the backing service cannot be reached.
   * `requester` (the client's address block) is handed to the password hasher, which shares its
   * waiting line fairly between requesters; rejects with PasswordHasherBusyError when it is full.
   */
  verifyPassword(account: Account, password: string, requester?: string): Promise<boolean>;

  /**
   * Does the work this store does to check a wrong password, for a `login` no store knows, and
   * resolves false: an unknown name must cost what a known one costs here, or the time of an
   * answer tells which accounts exist. Rejects like {@link verifyPassword}.
   */
  verifyDecoy(login: string, password: string, requester?: string): Promise<false>;

  /**
   * The account named `username` (its username, not its e-mail; case-insensitive) as the store
   * knows it now, or null when it no longer exists or is disabled. Sessions are checked against it
   * on every request (its credential version, TOTP secret, groups, name and e-mail), so it must be
   * cheap: a local store answers from memory and hands out the same object until its next reload;
   * a remote store may answer from a cache, and says in its own documentation how old an answer
   * may be. Rejects with {@link UserStoreUnavailableError} when the store cannot tell.
   */
  currentAccount(username: string): Awaitable<Account | null>;
}

/** Thrown by a store whose backing service is down; logins then fail with "unavailable", not "wrong password". */
export class UserStoreUnavailableError extends Error {
  constructor(
    readonly store: string,
    options?: { cause?: unknown },
  ) {
    super(`user store ${store} is unavailable`, options);
    this.name = 'UserStoreUnavailableError';
  }
}
