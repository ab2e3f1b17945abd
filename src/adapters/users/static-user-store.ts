import type { Account } from '../../domain/account';
import type { PasswordHasher } from '../../application/ports/password-hasher';
import type { UserStore } from '../../application/ports/user-store';

/**
 * Accounts fixed at start-up (the `USERS` variable), found by username or e-mail, case-insensitively.
 * The bcrypt hash is the account's credential version.
 */
export class StaticUserStore implements UserStore {
  private readonly byLogin = new Map<string, Account>();

  constructor(accounts: readonly Account[], private readonly hasher: PasswordHasher) {
    for (const account of accounts) {
      this.byLogin.set(account.username.toLowerCase(), account);
      if (!this.byLogin.has(account.email.toLowerCase())) this.byLogin.set(account.email.toLowerCase(), account);
    }
  }

  async findAccount(login: string): Promise<Account | null> {
    return this.byLogin.get(login.trim().toLowerCase()) ?? null;
  }

  async verifyPassword(account: Account, password: string): Promise<boolean> {
    const known = this.byLogin.get(account.username.toLowerCase());
    if (known === undefined) return false;
    return this.hasher.verify(password, known.credentialVersion);
  }
}
