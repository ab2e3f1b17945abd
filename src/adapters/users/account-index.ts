import type { Account } from '../../domain/account';

/**
 * Accounts by lower-cased username and e-mail, for the in-memory stores. Immutable: a store that
 * reloads builds a new index and swaps it in one assignment, so a lookup never sees half a list.
 * A username always wins over another account's e-mail that happens to be spelled the same.
 */
export class AccountIndex {
  private readonly usernames = new Map<string, Account>();
  private readonly logins = new Map<string, Account>();

  constructor(accounts: readonly Account[]) {
    for (const account of accounts) {
      const name = account.username.toLowerCase();
      this.usernames.set(name, account);
      this.logins.set(name, account);
    }
    for (const account of accounts) {
      const email = account.email.toLowerCase();
      if (!this.logins.has(email)) this.logins.set(email, account);
    }
  }

  get size(): number {
    return this.usernames.size;
  }

  /** Every account, in the order given. */
  all(): Account[] {
    return [...this.usernames.values()];
  }

  /** By username or e-mail, as typed at login. */
  find(login: string): Account | null {
    return this.logins.get(login.trim().toLowerCase()) ?? null;
  }

  byUsername(username: string): Account | null {
    return this.usernames.get(username.toLowerCase()) ?? null;
  }
}
