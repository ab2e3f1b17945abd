import { AdminGate } from '../application/admin/admin-gate';
import { EditAdminUserUseCase } from '../application/admin/edit-admin-user';
import { ExplainAccessUseCase } from '../application/admin/explain-access';
import { ListAdminSessionsUseCase } from '../application/admin/list-admin-sessions';
import { ListAdminUsersUseCase } from '../application/admin/list-admin-users';
import { RevokeAdminSessionsUseCase } from '../application/admin/revoke-admin-sessions';
import type { AccountDirectory } from '../application/admin/account-directory';
import type { UserStore } from '../application/ports/user-store';
import type { AuditLog } from '../application/ports/audit-log';
import type { PasskeyCredentials } from '../application/passkeys/passkey-credentials';
import type { UsersFileEditor } from '../adapters/users/users-file-editor';
import { StoreAccountDirectory } from '../adapters/users/store-account-directory';
import type { AdminUseCases } from '../adapters/http/admin-routes';
import type { Config } from '../config/load';
import type { TypedContainer } from './binding';
import { TOKENS } from './tokens';

/**
 * The admin console (issue 36). The gate is the one place that
 * decides who is an administrator with a fresh second factor; every admin use case asks it first.
 */
export function bindAdmin(c: TypedContainer, config: Pick<Config, 'adminGroups' | 'adminStepUpMaxAge' | 'appUrl'>): void {
  // Bound whatever ADMIN_GROUPS says (with none, the gate admits nobody); the routes exist only with them.
  const settings = { groups: config.adminGroups, stepUpMaxAge: config.adminStepUpMaxAge, consoleUrl: `${config.appUrl.replace(/\/+$/, '')}/admin` };
  c.bind(TOKENS.AccountDirectory, (store: UserStore): AccountDirectory => new StoreAccountDirectory(store), [TOKENS.StoreUsers]);
  c.bind(
    TOKENS.AdminGate,
    (...deps: ConstructorParameters<typeof AdminGate> extends [infer A, infer B, infer C, infer D, unknown] ? [A, B, C, D] : never) =>
      new AdminGate(...deps, settings),
    [TOKENS.RequestAuthenticator, TOKENS.StepUpReferences, TOKENS.Clock, TOKENS.AuditLog],
  );
  c.bind(
    TOKENS.ListAdminUsersUseCase,
    (gate: AdminGate, directory: AccountDirectory, users: UserStore, passkeys: PasskeyCredentials | null, file: { editor: UsersFileEditor | null }) =>
      new ListAdminUsersUseCase(gate, directory, users, passkeys, file.editor),
    [TOKENS.AdminGate, TOKENS.AccountDirectory, TOKENS.UserStore, TOKENS.PasskeyCredentialsIfOn, TOKENS.UsersFileEditor],
  );
  c.bind(
    TOKENS.EditAdminUserUseCase,
    (gate: AdminGate, directory: AccountDirectory, users: UserStore, file: { editor: UsersFileEditor | null }, audit: AuditLog) =>
      new EditAdminUserUseCase(gate, directory, users, file.editor, audit, config.adminGroups),
    [TOKENS.AdminGate, TOKENS.AccountDirectory, TOKENS.UserStore, TOKENS.UsersFileEditor, TOKENS.AuditLog],
  );
  c.bindClass(TOKENS.ListAdminSessionsUseCase, ListAdminSessionsUseCase, [
    TOKENS.AdminGate,
    TOKENS.AccountDirectory,
    TOKENS.SessionIndex,
    TOKENS.RevokedSessions,
  ]);
  c.bindClass(TOKENS.RevokeAdminSessionsUseCase, RevokeAdminSessionsUseCase, [
    TOKENS.AdminGate,
    TOKENS.AccountDirectory,
    TOKENS.SessionIndex,
    TOKENS.RevokedSessions,
    TOKENS.AuditLog,
  ]);
  c.bindClass(TOKENS.ExplainAccessUseCase, ExplainAccessUseCase, [TOKENS.AdminGate, TOKENS.AccessPolicy, TOKENS.Clock, TOKENS.AuditLog]);
}

/** The admin use cases for the HTTP adapter; undefined without ADMIN_GROUPS (the routes then do not exist). */
export function adminUseCases(config: Pick<Config, 'adminGroups'>, w: { get: TypedContainer['get'] }): AdminUseCases | undefined {
  if (config.adminGroups.length === 0) return undefined;
  return {
    listAdminUsers: w.get(TOKENS.ListAdminUsersUseCase),
    listAdminSessions: w.get(TOKENS.ListAdminSessionsUseCase),
    revokeAdminSessions: w.get(TOKENS.RevokeAdminSessionsUseCase),
    explainAccess: w.get(TOKENS.ExplainAccessUseCase),
    editAdminUser: w.get(TOKENS.EditAdminUserUseCase),
  };
}
