import { StorePasswordSources } from '../adapters/users/store-password-sources';
import { ChangePasswordUseCase, GetPasswordChangeUseCase, type PasswordWriters } from '../application/account/change-password';
import type { DirectoryPasswords } from '../application/account/directory-passwords';
import type { AccountEditor } from '../application/ports/account-editor';
import type { PasswordHasher } from '../application/ports/password-hasher';
import type { UserStore } from '../application/ports/user-store';
import { CompositeUserStore } from '../adapters/users/composite-user-store';
import type { Config } from '../config/load';
import type { TypedContainer } from './binding';
import { TOKENS } from './tokens';

/** The directory store among the configured ones, as the password changer it also is; null without LDAP. */
function directoryOf(store: UserStore): DirectoryPasswords | null {
  const stores = store instanceof CompositeUserStore ? store.parts : [store];
  // Found by shape, not by class: the LDAP store's module loads only with LDAP_ADDRESS (ADR 0015).
  const ldap = stores.find((s) => typeof (s as Partial<{ changePassword: unknown }>).changePassword === 'function') as
    { changePassword: DirectoryPasswords['change'] } | undefined;
  return ldap === undefined ? null : { change: (account, current, next) => ldap.changePassword(account, current, next) };
}

/**
 * Changing one's own password on the account page (issue 36): the users file through its editor,
 * LDAP through the directory with LDAP_PASSWORD_CHANGE, USERS never.
 */
export function bindPasswordChange(c: TypedContainer, config: Pick<Config, 'ldap'>): void {
  c.bind(
    TOKENS.PasswordWriters,
    (storeUsers: UserStore, hasher: PasswordHasher, file: { readonly editor: AccountEditor | null }): PasswordWriters => ({
      sources: new StorePasswordSources(storeUsers),
      hasher,
      // Null without USERS_FILE; it reloads the file store after each write.
      editor: file.editor,
      directory: config.ldap?.passwordChange === true ? directoryOf(storeUsers) : null,
    }),
    [TOKENS.StoreUsers, TOKENS.PasswordHasher, TOKENS.UsersFileEditor],
  );
  c.bindClass(TOKENS.GetPasswordChangeUseCase, GetPasswordChangeUseCase, [TOKENS.RequestAuthenticator, TOKENS.UserStore, TOKENS.PasswordWriters]);
  c.bindClass(TOKENS.ChangePasswordUseCase, ChangePasswordUseCase, [
    TOKENS.RequestAuthenticator,
    TOKENS.UserStore,
    TOKENS.CredentialCheck,
    TOKENS.PasswordWriters,
    TOKENS.SecondFactorSessions,
    TOKENS.AuditLog,
  ]);
}
