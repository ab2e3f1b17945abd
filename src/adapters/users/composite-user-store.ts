import type { Account } from '../../domain/account';
import { UserStoreUnavailableError, type UserStore } from '../../application/ports/user-store';

/**
 * Several stores asked in order (USERS, then the file, then LDAP): the first that knows a login
 * wins, so one gateway can mix them and a local account shadows a directory account of the same
 * name. A store that is down is only an answer when no earlier store knew the login; an account is
 * always checked by the store that returned it. An unknown name costs what a wrong password costs
 * in the last store (the directory, when LDAP is configured): that store is asked last, holds
 * the bulk of the accounts in a mixed setup, and would have checked the name had it held it.
 */
export class CompositeUserStore implements UserStore {
  private readonly origin = new WeakMap<Account, UserStore>();

  constructor(private readonly stores: readonly UserStore[]) {}

  /** The stores in the order they are asked (the admin console lists each one's accounts, issue 36). */
  get parts(): readonly UserStore[] {
    return this.stores;
  }

  async findAccount(login: string): Promise<Account | null> {
    for (const store of this.stores) {
      const account = await store.findAccount(login);
      if (account !== null) {
        this.origin.set(account, store);
        return account;
      }
    }
    return null;
  }

  async verifyPassword(account: Account, password: string, requester?: string): Promise<boolean> {
    let store = this.origin.get(account);
    if (store === undefined) {
      // An account object this composite did not hand out: find which store owns that username now.
      for (const candidate of this.stores) {
        if ((await candidate.findAccount(account.username))?.username === account.username) {
          store = candidate;
          break;
        }
      }
    }
    return store === undefined ? false : store.verifyPassword(account, password, requester);
  }

  verifyDecoy(login: string, password: string, requester?: string): Promise<false> {
    const last = this.stores.at(-1);
    return last === undefined ? Promise.resolve(false) : last.verifyDecoy(login, password, requester);
  }

  /**
   * The first store that holds the username answers, as at login: when a local account that shadowed
   * a directory account of the same name is removed, the directory account is what sessions are
   * compared with (a different credential, so those sessions end).
   */
  async currentAccount(username: string): Promise<Account | null> {
    let outage: UserStoreUnavailableError | null = null;
    for (const store of this.stores) {
      try {
        const account = await store.currentAccount(username);
        if (account !== null) {
          this.origin.set(account, store);
          return account;
        }
      } catch (e) {
        if (!(e instanceof UserStoreUnavailableError)) throw e;
        outage ??= e;
      }
    }
    if (outage !== null) throw outage;
    return null;
  }
}
