import { hasTotp } from '../../domain/account';
import { ok, type Result } from '../../domain/result';
import type { PasskeyCredentials } from '../passkeys/passkey-credentials';
import type { AccountEditor } from '../ports/account-editor';
import type { UserStore } from '../ports/user-store';
import { unavailableAsError } from '../store-unavailable';
import type { AccountDirectory, AccountSource } from './account-directory';
import type { AdminGate, AdminRefusal, AdminRequest } from './admin-gate';

export interface AdminUserView {
  readonly username: string;
  readonly name: string;
  readonly email: string;
  readonly groups: readonly string[];
  readonly disabled: boolean;
  readonly source: AccountSource;
  /** Whether the person has a TOTP second factor (from the store or enrolled on the account page). */
  readonly totp: boolean;
  /** How many passkeys the person has registered. */
  readonly passkeys: number;
}

export interface AdminUserList {
  readonly users: readonly AdminUserView[];
  /** The users file's version (a digest) when there is one: edits send it back to refuse a lost update. */
  readonly version: string | null;
}

/** `GET /api/admin/users` (issue 36): every person of the configured stores, sorted by username. */
export class ListAdminUsersUseCase {
  constructor(
    private readonly gate: AdminGate,
    private readonly directory: AccountDirectory,
    /** The store with self-enrolled TOTP secrets laid over it: what a login checks. */
    private readonly users: UserStore,
    private readonly passkeys: PasskeyCredentials | null,
    /** The users-file writer with USERS_FILE set: its version goes with the list, for the edits made from it. */
    private readonly editor: AccountEditor | null = null,
  ) {}

  async execute(request: AdminRequest): Promise<Result<AdminUserList, AdminRefusal>> {
    const admitted = await this.gate.admit(request);
    if (!admitted.ok) return admitted;
    return unavailableAsError(async () => {
      // Read before the list: an edit made from a list older than the file is then refused, never applied blind.
      const version = this.editor === null ? null : await this.editor.version().catch(() => null);
      const listed = await this.directory.list();
      const views = await Promise.all(
        listed.map(async ({ account, source, disabled }): Promise<AdminUserView> => {
          const current = (await this.users.currentAccount(account.username)) ?? account;
          const passkeys = this.passkeys === null ? 0 : (await this.passkeys.list(account.username)).length;
          return {
            username: account.username,
            name: account.name,
            email: account.email,
            groups: [...account.groups],
            disabled: disabled === true,
            source,
            totp: hasTotp(current),
            passkeys,
          };
        }),
      );
      return ok({ users: views.sort((a, b) => a.username.localeCompare(b.username)), version });
    });
  }
}
