import { err, ok, type Result } from '../../domain/result';
import type { AccountChange, AccountEditError, AccountEditor } from '../ports/account-editor';
import type { AuditLog } from '../ports/audit-log';
import type { UserStore } from '../ports/user-store';
import { unavailableAsError } from '../store-unavailable';
import type { AccountDirectory, ListedAccount } from './account-directory';
import { type AdminGate, type AdminRefusal, type AdminRequest, admitChange } from './admin-gate';

/** What the console may change about a person (a password comes with an invitation, not from here). */
export type AdminUserChange = Extract<AccountChange, { kind: 'create' | 'update' | 'disable' | 'enable' | 'delete' }>;

export interface EditAdminUserInput extends AdminRequest {
  /** Whether the request provably comes from the gateway's own pages: refused otherwise (CSRF). */
  readonly fromThisSite: boolean;
  readonly change: AdminUserChange;
  /** The users file's version the console's list was read at; the edit is refused when the file moved since. */
  readonly version?: string;
}

/**
 * `read_only_source`: the person comes from USERS or LDAP (or there is no users file to write).
 * `last_admin`: the change would leave no enabled administrator, or take the acting administrator's
 * own way in (disabling or deleting themselves, or leaving every group of ADMIN_GROUPS).
 */
export type EditAdminUserError =
  AdminRefusal | { readonly code: 'cross_site_request' } | { readonly code: 'read_only_source' } | { readonly code: 'last_admin' } | AccountEditError;

const AUDIT_EVENTS = {
  create: 'user_created',
  update: 'user_updated',
  disable: 'user_disabled',
  enable: 'user_enabled',
  delete: 'user_deleted',
} as const;

/**
 * `POST /api/admin/users`, `/users/update`, `/users/disable`, `/users/enable` and `/users/delete`
 * (issue 36): one change to one person of the users file, written back as a hand edit would be
 * (see AccountEditor), audited with the acting administrator. The editor reloads the file before
 * it answers, so a disabled or deleted person's sessions are refused from then on and revoked
 * everywhere (the users-file removal path of issue 35).
 */
export class EditAdminUserUseCase {
  private readonly adminGroups: ReadonlySet<string>;

  constructor(
    private readonly gate: AdminGate,
    private readonly directory: AccountDirectory,
    /** Every configured store: a person of LDAP, which the directory does not list, is found here. */
    private readonly users: UserStore,
    private readonly editor: AccountEditor | null,
    private readonly audit: AuditLog,
    adminGroups: readonly string[],
  ) {
    this.adminGroups = new Set(adminGroups);
  }

  async execute(input: EditAdminUserInput): Promise<Result<{ readonly version: string }, EditAdminUserError>> {
    const admitted = await admitChange(this.gate, this.audit, input);
    if (!admitted.ok) return admitted;
    const admin = admitted.value.identity.username;
    const change = input.change;
    return unavailableAsError(async () => {
      const listed = await this.directory.list();
      const refusal = await this.refusal(change, listed, admin);
      if (refusal !== null) return err(refusal);
      if (this.editor === null) return err({ code: 'read_only_source' as const });
      const edited = await this.editor.edit(change, input.version);
      if (!edited.ok) return edited;
      const fields = change.kind === 'update' || change.kind === 'create' ? changedFields(change) : undefined;
      this.audit.record({
        event: AUDIT_EVENTS[change.kind],
        username: change.username,
        admin,
        ...(fields !== undefined ? { fields } : {}),
        requestId: input.requestId,
      });
      return ok(edited.value);
    });
  }

  /** Why the change may not be made, before the file is touched; null when it may. */
  private async refusal(change: AdminUserChange, listed: readonly ListedAccount[], admin: string): Promise<EditAdminUserError | null> {
    const key = change.username.toLowerCase();
    const person = listed.find((l) => l.account.username.toLowerCase() === key);
    if (change.kind === 'create') {
      if (person !== undefined || (await this.users.currentAccount(change.username)) !== null) return { code: 'user_exists' };
      return null;
    }
    if (person === undefined) return (await this.users.currentAccount(change.username)) !== null ? { code: 'read_only_source' } : { code: 'user_not_found' };
    if (person.source !== 'file') return { code: 'read_only_source' };
    return this.lastAdmin(change, person, admin) ? { code: 'last_admin' } : null;
  }

  private isAdmin(groups: readonly string[]): boolean {
    return groups.some((g) => this.adminGroups.has(g));
  }

  /**
   * Whether the change takes the acting administrator's own way in. That is also the only way to
   * leave no administrator: whoever acts is one, and stays one unless the change is about
   * themselves (wherever their account lives, LDAP included).
   */
  private lastAdmin(change: AdminUserChange, person: ListedAccount, admin: string): boolean {
    const removesAdmin =
      change.kind === 'disable' || change.kind === 'delete' || (change.kind === 'update' && change.groups !== undefined && !this.isAdmin(change.groups));
    return removesAdmin && person.account.username.toLowerCase() === admin.toLowerCase();
  }
}

function changedFields(change: Extract<AccountChange, { kind: 'create' | 'update' }>): string[] {
  return (['name', 'email', 'groups'] as const).filter((f) => change[f] !== undefined);
}
