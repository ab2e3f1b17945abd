import type { Account } from '../../domain/account';
import type { PasswordHasher } from '../../application/ports/password-hasher';
import type { UserStore } from '../../application/ports/user-store';
import { AccountIndex } from './account-index';

/**
 * A fixed list of accounts (the `USERS` variable; the users file store swaps in a new one at each
 * reload), found by username or e-mail, case-insensitively. The bcrypt hash is the account's
 * credential version.
 */
export class StaticUserStore implements UserStore {
  private readonly index: AccountIndex;

  constructor(
    accounts: readonly Account[],
    private readonly hasher: PasswordHasher,
  ) {
    this.index = new AccountIndex(accounts);
  }

  // Both lookups answer at once (from memory), so a cached Basic header and a session check stay synchronous.
  findAccount(login: string): Account | null {
    return this.index.find(login);
  }

  async verifyPassword(account: Account, password: string, requester?: string): Promise<boolean> {
    const known = this.index.byUsername(account.username);
    if (known === null) return false;
    // No password exists to match (issue 16): the decoy check costs what a wrong password costs, so
    // neither the answer nor its time tells a passkey-only account from a mistyped password.
    // So for a service account (issue 32): it has no password, only access tokens.
    if (known.passkeyOnly === true || known.service === true) return this.hasher.verifyDecoy(password, requester);
    return this.hasher.verify(password, known.credentialVersion, requester);
  }

  verifyDecoy(_login: string, password: string, requester?: string): Promise<false> {
    return this.hasher.verifyDecoy(password, requester);
  }

  currentAccount(username: string): Account | null {
    return this.index.byUsername(username);
  }

  /** Every account it holds (the admin console's list, issue 36). */
  accounts(): Account[] {
    return this.index.all();
  }

  /** How many accounts it holds. */
  get size(): number {
    return this.index.size;
  }
}
