import type { AccountDirectory, AccountListing, AccountSource, ListedAccount } from '../../application/admin/account-directory';
import type { UserStore } from '../../application/ports/user-store';
import type { Account } from '../../domain/account';
import { CompositeUserStore } from './composite-user-store';
import { FileUserStore } from './file-user-store';
import type { LdapUserStore } from './ldap-user-store';
import { StaticUserStore } from './static-user-store';

/**
 * The accounts of the configured user stores (USERS, the users file, the LDAP directory), for the
 * admin console (issue 36). A name held by an earlier store shadows it in a later one, as at
 * login. The directory is read with a paged search of at most MAX_LISTED people (LdapUserStore).
 * The users file's disabled accounts are listed too, marked disabled.
 */
export class StoreAccountDirectory implements AccountDirectory {
  constructor(private readonly store: UserStore) {}

  async list(): Promise<readonly ListedAccount[]> {
    return (await this.listing()).accounts;
  }

  async listing(): Promise<AccountListing> {
    const stores = this.store instanceof CompositeUserStore ? this.store.parts : [this.store];
    const seen = new Set<string>();
    const out: ListedAccount[] = [];
    const truncated: AccountSource[] = [];
    for (const store of stores) {
      const read = await accountsOf(store);
      if (read === null) continue;
      if (read.truncated) truncated.push(read.source);
      for (const account of read.accounts) {
        const key = account.username.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ account, source: read.source });
      }
      if (!(store instanceof FileUserStore)) continue;
      for (const account of store.disabledAccounts()) {
        const key = account.username.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ account, source: 'file', disabled: true });
      }
    }
    return { accounts: out, truncated };
  }
}

async function accountsOf(store: UserStore): Promise<{ source: AccountSource; accounts: readonly Account[]; truncated: boolean } | null> {
  if (store instanceof StaticUserStore) return { source: 'users', accounts: store.accounts(), truncated: false };
  if (store instanceof FileUserStore) return { source: 'file', accounts: store.accounts(), truncated: false };
  // Recognised by its method, not instanceof: the LDAP store's code loads only with LDAP_ADDRESS (ADR 0015).
  if (isLdap(store)) return { source: 'ldap', ...(await store.listAccounts()) };
  return null;
}

const isLdap = (store: UserStore): store is LdapUserStore => typeof (store as Partial<LdapUserStore>).listAccounts === 'function';
