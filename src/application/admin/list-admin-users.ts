import { hasTotp, type Account } from '../../domain/account';
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

export interface AdminUsersList {
  readonly users: readonly AdminUserView[];
  /** Sources with more people than the list reads (LDAP: more than 1000); the page says so. */
  readonly truncated: readonly AccountSource[];
  /** The users file's version (a digest) when there is one: edits send it back to refuse a lost update. */
  readonly version: string | null;
}

/** `GET /api/admin/users` (issue 36): every person of the configured stores (or those a search finds), sorted by username. */
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

  async execute(request: AdminRequest & { readonly search?: string }): Promise<Result<AdminUsersList, AdminRefusal>> {
    const admitted = await this.gate.admit(request);
    if (!admitted.ok) return admitted;
    return unavailableAsError(async () => {
      // Read before the list: an edit made from a list older than the file is then refused, never applied blind.
      const version = this.editor === null ? null : await this.editor.version().catch(() => null);
      const { accounts, truncated } = await this.directory.listing();
      const wanted = (request.search ?? '').trim().toLowerCase();
      const listed = wanted === '' ? accounts : accounts.filter(({ account }) => matchesSearch(account, wanted));
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
      return ok({ users: views.sort((a, b) => a.username.localeCompare(b.username)), truncated, version });
    });
  }
}

/** A person matches a search (lower-cased) when it is part of their username, name, e-mail or one of their groups. */
function matchesSearch(account: Account, search: string): boolean {
  return [account.username, account.name, account.email, ...account.groups].some((text) => text.toLowerCase().includes(search));
}
