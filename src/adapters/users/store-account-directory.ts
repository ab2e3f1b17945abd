import type { AccountDirectory, AccountSource, ListedAccount } from '../../application/admin/account-directory';
import type { UserStore } from '../../application/ports/user-store';
import { CompositeUserStore } from './composite-user-store';
import { FileUserStore } from './file-user-store';
import { StaticUserStore } from './static-user-store';

/**
 * The accounts of the configured user stores (USERS, the users file), for the admin console
 * (issue 36). A name held by an earlier store shadows it in a later one, as at login. The LDAP
 * directory is not enumerated yet: its people do not appear in the list. The users file's disabled
 * accounts are listed too, marked disabled.
 */
export class StoreAccountDirectory implements AccountDirectory {
  constructor(private readonly store: UserStore) {}

  list(): Promise<readonly ListedAccount[]> {
    const stores = this.store instanceof CompositeUserStore ? this.store.parts : [this.store];
    const seen = new Set<string>();
    const out: ListedAccount[] = [];
    for (const store of stores) {
      const source: AccountSource | null = store instanceof StaticUserStore ? 'users' : store instanceof FileUserStore ? 'file' : null;
      if (source === null) continue;
      for (const account of (store as StaticUserStore | FileUserStore).accounts()) {
        const key = account.username.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ account, source });
      }
      if (!(store instanceof FileUserStore)) continue;
      for (const account of store.disabledAccounts()) {
        const key = account.username.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ account, source, disabled: true });
      }
    }
    return Promise.resolve(out);
  }
}
