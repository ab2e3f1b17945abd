import type { AccountDirectory, ListedAccount } from '../../../../src/application/admin/account-directory';
import type { AdminGate } from '../../../../src/application/admin/admin-gate';
import { EditAdminUserUseCase, type AdminUserChange } from '../../../../src/application/admin/edit-admin-user';
import type { AccountChange, AccountEditor } from '../../../../src/application/ports/account-editor';
import type { UserStore } from '../../../../src/application/ports/user-store';
import type { Account } from '../../../../src/domain/account';
import { ok } from '../../../../src/domain/result';
import { RecordingAuditLog } from '../../../support/fakes';

const account = (username: string, groups: string[] = []): Account =>
  ({ username, name: username, email: `${username}@example.test`, groups, credentialVersion: 'x' }) as Account;

function setUp(options: { editor?: boolean; actor?: string; listed?: ListedAccount[]; ldap?: string[] } = {}) {
  const actor = options.actor ?? 'root';
  const gate = { admit: async () => ok({ identity: { username: actor }, session: {} }) } as unknown as AdminGate;
  const listed = options.listed ?? [
    { account: account('root', ['admins']), source: 'file' },
    { account: account('pam', ['admins']), source: 'file' },
    { account: account('uma'), source: 'users' },
    { account: account('dora', ['admins']), source: 'file', disabled: true },
  ];
  const directory: AccountDirectory = { list: async () => listed, listing: async () => ({ accounts: listed, truncated: [] }) };
  const ldap = new Set(options.ldap ?? []);
  const users = { currentAccount: (u: string) => (ldap.has(u.toLowerCase()) ? account(u) : null) } as unknown as UserStore;
  const edits: Array<[AccountChange, string | undefined]> = [];
  const editor: AccountEditor = {
    version: async () => 'v1',
    edit: async (change, expected) => {
      edits.push([change, expected]);
      return ok({ version: 'v2' });
    },
  };
  const audit = new RecordingAuditLog();
  const useCase = new EditAdminUserUseCase(gate, directory, users, options.editor === false ? null : editor, audit, ['admins']);
  const run = (change: AdminUserChange, fromThisSite = true) => useCase.execute({ ip: '192.0.2.1', fromThisSite, change, version: 'v1' });
  return { run, edits, audit };
}

describe('EditAdminUserUseCase', () => {
  it('hands the change and the version to the editor, and audits it with the acting administrator', async () => {
    const { run, edits, audit } = setUp();
    expect(await run({ kind: 'update', username: 'pam', name: 'Pam', groups: ['staff'] })).toEqual({ ok: true, value: { version: 'v2' } });
    expect(edits).toEqual([[{ kind: 'update', username: 'pam', name: 'Pam', groups: ['staff'] }, 'v1']]);
    expect(audit.events).toEqual([{ event: 'user_updated', username: 'pam', admin: 'root', fields: ['name', 'groups'] }]);
  });

  it('refuses a cross-site request before asking anyone', async () => {
    const { run, edits, audit } = setUp();
    expect(await run({ kind: 'delete', username: 'pam' }, false)).toEqual({ ok: false, error: { code: 'cross_site_request' } });
    expect(edits).toEqual([]);
    expect(audit.events).toEqual([expect.objectContaining({ event: 'admin_refused', reason: 'cross_site' })]);
  });

  it.each<[string, AdminUserChange]>([
    ['a person of USERS', { kind: 'disable', username: 'uma' }],
    ['a person of LDAP (not listed, but known to the stores)', { kind: 'update', username: 'lars', name: 'L' }],
  ])('answers read_only_source for %s', async (_name, change) => {
    const { run, edits } = setUp({ ldap: ['lars'] });
    expect(await run(change)).toEqual({ ok: false, error: { code: 'read_only_source' } });
    expect(edits).toEqual([]);
  });

  it('answers read_only_source to a create without a users file, user_exists for a name any store holds', async () => {
    expect(await setUp({ editor: false }).run({ kind: 'create', username: 'new' })).toEqual({ ok: false, error: { code: 'read_only_source' } });
    expect(await setUp({ ldap: ['lars'] }).run({ kind: 'create', username: 'LARS' })).toEqual({ ok: false, error: { code: 'user_exists' } });
    expect(await setUp().run({ kind: 'create', username: 'Uma' })).toEqual({ ok: false, error: { code: 'user_exists' } });
  });

  it('answers user_not_found for a name no store holds', async () => {
    expect(await setUp().run({ kind: 'enable', username: 'zed' })).toEqual({ ok: false, error: { code: 'user_not_found' } });
  });

  it.each<AdminUserChange>([
    { kind: 'disable', username: 'root' },
    { kind: 'delete', username: 'Root' },
    { kind: 'update', username: 'root', groups: [] },
    { kind: 'update', username: 'root', groups: ['staff'] },
  ])('answers last_admin to an administrator taking their own access: %j', async (change) => {
    const { run, edits } = setUp();
    expect(await run(change)).toEqual({ ok: false, error: { code: 'last_admin' } });
    expect(edits).toEqual([]);
  });

  it('lets an administrator keep their groups, rename themselves, and disable or enable another administrator', async () => {
    const { run, edits } = setUp();
    for (const change of [
      { kind: 'update', username: 'root', name: 'R', groups: ['admins', 'staff'] },
      { kind: 'disable', username: 'pam' },
      { kind: 'enable', username: 'dora' },
    ] as AdminUserChange[]) {
      expect((await run(change)).ok).toBe(true);
    }
    expect(edits).toHaveLength(3);
  });
});
