import { CompositeUserStore } from '../adapters/users/composite-user-store';
import { FileUserStore } from '../adapters/users/file-user-store';
import { UsersFileEditor } from '../adapters/users/users-file-editor';
import { optionalModules } from './optional-modules';
import { StaticUserStore } from '../adapters/users/static-user-store';
import { accountFromEntry } from '../domain/users-list';
import type { Logger } from '../adapters/system/logger';
import type { Clock } from '../application/ports/clock';
import type { PasswordHasher } from '../application/ports/password-hasher';
import type { UserStore } from '../application/ports/user-store';
import type { Config } from '../config/load';
import type { Resources } from './resources';
import type { TypedContainer } from './binding';
import { protectedDomainOfAppUrl } from './cookie-domain';
import { TOKENS } from './tokens';
import { EndRemovedAccountsUseCase } from '../application/sessions/end-removed-accounts';

/** The configured stores in their fixed order, USERS → USERS_FILE → LDAP; one store is used bare. */
export function buildUserStore(
  config: Pick<Config, 'users' | 'usersFile' | 'ldap'>,
  domain: string,
  deps: {
    hasher: PasswordHasher;
    clock: Clock;
    logger: Logger;
    resources: Resources;
    removed?: (usernames: readonly string[]) => void;
    /** Told the users file's store once it is built (the users-file writer reloads it after each write). */
    fileStore?: (store: FileUserStore) => void;
  },
): UserStore {
  const stores: UserStore[] = [];
  if (config.users.length > 0 || (config.usersFile === null && config.ldap === null)) {
    stores.push(
      new StaticUserStore(
        config.users.map((u) => accountFromEntry(u, domain)),
        deps.hasher,
      ),
    );
  }
  if (config.usersFile !== null) {
    const file = new FileUserStore(config.usersFile.path, config.usersFile.entries, domain, deps.hasher, deps.logger, optionalModules.yaml, {
      // Issue 35: an account removed or disabled there is out everywhere at once.
      onReload: (outcome) => {
        if (outcome.kind === 'reloaded' && outcome.removed.length > 0) deps.removed?.(outcome.removed);
      },
    });
    deps.fileStore?.(file);
    deps.resources.onStart(() => file.start());
    deps.resources.add(() => file.close());
    stores.push(file);
  }
  if (config.ldap !== null) {
    // The LDAP store's own code loads with LDAP_ADDRESS, like ldapts (ADR 0015): a gateway without LDAP never carries it.
    const { LdapUserStore } = require('../adapters/users/ldap-user-store') as typeof import('../adapters/users/ldap-user-store');
    const ldap = new LdapUserStore(config.ldap, domain, deps.clock, deps.logger, optionalModules.ldapts());
    deps.resources.add(() => ldap.close());
    stores.push(ldap);
  }
  return stores.length === 1 ? stores[0] : new CompositeUserStore(stores);
}

/** The configured user stores (the TOTP binder lays the self-enrolled secrets over them as TOKENS.UserStore). */
export function bindUsers(c: TypedContainer, config: Pick<Config, 'appUrl' | 'users' | 'usersFile' | 'ldap'>): void {
  const domain = protectedDomainOfAppUrl(config.appUrl).domain;
  let fileStore: FileUserStore | null = null;
  c.bind(
    TOKENS.StoreUsers,
    (hasher: PasswordHasher, clock: Clock, logger: Logger, resources: Resources): UserStore =>
      buildUserStore(config, domain, {
        hasher,
        clock,
        logger,
        resources,
        removed: (usernames) => void c.get(TOKENS.EndRemovedAccountsUseCase).execute(usernames),
        fileStore: (store) => {
          fileStore = store;
        },
      }),
    [TOKENS.PasswordHasher, TOKENS.Clock, TOKENS.Logger, TOKENS.Resources],
  );
  // Issue 36: the admin console writes USERS_FILE; each write is loaded at once (a disabled or deleted
  // person's sessions end before the answer), not when the watcher notices. Without the file, no editor.
  const usersFile = config.usersFile;
  c.bind(
    TOKENS.UsersFileEditor,
    (): { editor: UsersFileEditor | null } => ({
      editor: usersFile === null ? null : new UsersFileEditor(usersFile.path, optionalModules.yaml, { afterWrite: async () => fileStore?.reload() }),
    }),
    // The store first: the editor reloads the very store logins read.
    [TOKENS.StoreUsers],
  );
  c.bindClass(TOKENS.EndRemovedAccountsUseCase, EndRemovedAccountsUseCase, [TOKENS.SessionIndex, TOKENS.RevokedSessions, TOKENS.AuditLog]);
}
