import type { PasswordSources } from '../../application/account/password-sources';
import type { AccountSource } from '../../application/admin/account-directory';
import type { UserStore } from '../../application/ports/user-store';
import { CompositeUserStore } from './composite-user-store';
import { FileUserStore } from './file-user-store';
import { StaticUserStore } from './static-user-store';

/**
 * Which configured store holds an account (USERS, the users file, LDAP), asked in the login's
 * order, for the self-service password change (issue 36).
 */
export class StorePasswordSources implements PasswordSources {
  private readonly stores: readonly UserStore[];

  constructor(store: UserStore) {
    this.stores = store instanceof CompositeUserStore ? store.parts : [store];
  }

  async sourceOf(username: string): Promise<AccountSource | null> {
    for (const store of this.stores) {
      if ((await store.currentAccount(username)) === null) continue;
      return store instanceof StaticUserStore ? 'users' : store instanceof FileUserStore ? 'file' : 'ldap';
    }
    return null;
  }

  async reloadFile(): Promise<void> {
    for (const store of this.stores) {
      if (!(store instanceof FileUserStore)) continue;
      // A read already under way may have started before the write: the second call is one that
      // starts after it (a call during a read is answered by the read that follows it).
      await store.reload();
      await store.reload();
    }
  }
}
