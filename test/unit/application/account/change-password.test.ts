import { ChangePasswordUseCase, GetPasswordChangeUseCase, type PasswordWriters } from '../../../../src/application/account/change-password';
import type { DirectoryPasswordChange, DirectoryPasswords } from '../../../../src/application/account/directory-passwords';
import type { PasswordSources } from '../../../../src/application/account/password-sources';
import type { AccountSource } from '../../../../src/application/admin/account-directory';
import type { AccountChange, AccountEditError, AccountEditor } from '../../../../src/application/ports/account-editor';
import { SecondFactorSessions } from '../../../../src/application/totp/second-factor-sessions';
import type { Account } from '../../../../src/domain/account';
import { err, ok, type Result } from '../../../../src/domain/result';
import { aUser } from '../../../support/builders';
import { makeCore, signIn, type Core } from '../../../support/core';
import { FakeTotpVerifier } from '../../../support/fakes';

const ip = '198.51.100.7';
const NEW = 'a much longer passphrase';

/** The users file as the fake user store holds it: an edit replaces the account's hash once the file is read again. */
class FakeAccountEditor implements AccountEditor {
  revision = 1;
  edits: AccountChange[] = [];
  pending: AccountChange[] = [];
  async version(): Promise<string> {
    return `v${this.revision}`;
  }
  async edit(change: AccountChange, expectedVersion?: string): Promise<Result<{ readonly version: string }, AccountEditError>> {
    if (expectedVersion !== undefined && expectedVersion !== `v${this.revision}`) return err({ code: 'users_file_changed' });
    this.revision += 1;
    this.edits.push(change);
    this.pending.push(change);
    return ok({ version: `v${this.revision}` });
  }
}

class FakeSources implements PasswordSources {
  constructor(
    private readonly core: Core,
    private readonly editor: FakeAccountEditor,
    private readonly sources: Record<string, AccountSource>,
    private accounts: Account[],
  ) {}
  async sourceOf(username: string): Promise<AccountSource | null> {
    return this.sources[username.toLowerCase()] ?? null;
  }
  async reloadFile(): Promise<void> {
    for (const change of this.editor.pending.splice(0)) {
      if (change.kind !== 'set_password') continue;
      this.accounts = this.accounts.map((a) => (a.username === change.username ? { ...a, credentialVersion: change.passwordHash } : a));
    }
    this.core.users.replace(this.accounts);
  }
  /** The directory changed an entry (its change stamp and password). */
  directoryChanged(username: string, password: string): void {
    this.accounts = this.accounts.map((a) => (a.username === username ? { ...a, credentialVersion: `fake:${password}` } : a));
    this.core.users.replace(this.accounts);
  }
}

class FakeDirectory implements DirectoryPasswords {
  answer: DirectoryPasswordChange = 'changed';
  constructor(private readonly sources: () => FakeSources) {}
  async change(account: Account, _current: string, next: string): Promise<DirectoryPasswordChange> {
    if (this.answer === 'changed') this.sources().directoryChanged(account.username, next);
    return this.answer;
  }
}

function setUp(options: { directory?: boolean } = {}) {
  const accounts = [
    aUser().named('alice').withPassword('old-pw').build(),
    aUser().named('tom').withPassword('old-pw').withTotp().build(),
    aUser().named('ursula').withPassword('old-pw').build(),
    aUser().named('lars').withPassword('old-pw').build(),
    aUser().named('alexander-the-great').withPassword('old-pw').build(),
  ];
  const core = makeCore(accounts);
  const editor = new FakeAccountEditor();
  const sources: FakeSources = new FakeSources(
    core,
    editor,
    { alice: 'file', tom: 'file', 'alexander-the-great': 'file', ursula: 'users', lars: 'ldap' },
    accounts,
  );
  const directory = new FakeDirectory(() => sources);
  const writers: PasswordWriters = { sources, hasher: core.hasher, editor, directory: options.directory === false ? null : directory };
  const sessions = new SecondFactorSessions(core.index, core.revoked, core.fingerprints, core.issuer);
  return {
    core,
    editor,
    directory,
    change: new ChangePasswordUseCase(core.authenticator, core.users, core.credentials, writers, sessions, core.audit),
    get: new GetPasswordChangeUseCase(core.authenticator, core.users, writers),
  };
}

type Setup = ReturnType<typeof setUp>;

const change = (s: Setup, token: string, current: string, password: string, fromThisSite = true) =>
  s.change.execute({ sessionToken: token, fromThisSite, current, password, ip });

const passes = async (s: Setup, token: string): Promise<boolean> => (await s.core.authenticator.authenticate({ sessionToken: token, ip })).kind === 'session';

describe('ChangePasswordUseCase', () => {
  it('writes the new hash to the users file: the old password stops working, the new one logs in', async () => {
    const s = setUp();
    const { token } = await signIn(s.core, 'alice', 'old-pw');
    const changed = await change(s, token, 'old-pw', NEW);
    expect(changed.ok).toBe(true);
    expect(s.editor.edits).toEqual([{ kind: 'set_password', username: 'alice', passwordHash: `fake:${NEW}` }]);
    expect(await s.core.login.execute({ login: 'alice', password: 'old-pw', ip })).toEqual({ ok: false, error: { code: 'invalid_credentials' } });
    expect((await s.core.login.execute({ login: 'alice', password: NEW, ip })).ok).toBe(true);
    expect(s.core.audit.events).toContainEqual(expect.objectContaining({ event: 'password_changed', username: 'alice', source: 'file', ip }));
  });

  it('ends every other session of the account and hands the caller a re-issued one that passes', async () => {
    const s = setUp();
    const mine = await signIn(s.core, 'alice', 'old-pw');
    const other = await signIn(s.core, 'alice', 'old-pw', '203.0.113.9');
    const changed = await change(s, mine.token, 'old-pw', NEW);
    if (!changed.ok) throw new Error(changed.error.code);
    expect(changed.value.ended).toBe(2);
    expect(await passes(s, other.token)).toBe(false);
    expect(await passes(s, mine.token)).toBe(false);
    expect(await passes(s, changed.value.token)).toBe(true);
    expect(changed.value.session.id).not.toBe(mine.session.id);
  });

  it('keeps a TOTP session second-factor verified in its re-issued session', async () => {
    const s = setUp();
    const login = await s.core.login.execute({ login: 'tom', password: 'old-pw', ip });
    if (!login.ok) throw new Error('login refused');
    const verified = await s.core.verifyTotp.execute({
      sessionToken: login.value.token,
      code: FakeTotpVerifier.codeAt('JBSWY3DPEHPK3PXPJBSWY3DP', s.core.clock.now()),
      ip,
    });
    if (!verified.ok) throw new Error(verified.error.code);
    const changed = await change(s, verified.value.token, 'old-pw', NEW);
    expect(changed.ok && changed.value.session.totp).toBe(true);
    expect(changed.ok && (await passes(s, changed.value.token))).toBe(true);
  });

  it('counts a wrong current password like a failed login, up to the account lock', async () => {
    const s = setUp();
    const { token } = await signIn(s.core, 'alice', 'old-pw');
    // The lock is 3 failures.
    for (let i = 0; i < 3; i += 1) expect(await change(s, token, 'not-it', NEW)).toEqual({ ok: false, error: { code: 'invalid_credentials' } });
    expect(s.core.audit.events.filter((e) => e.event === 'login_failed')).toHaveLength(3);
    const locked = await change(s, token, 'old-pw', NEW);
    expect(!locked.ok && locked.error.code).toBe('account_locked');
    expect((await s.core.login.execute({ login: 'alice', password: 'old-pw', ip: '203.0.113.9' })).ok).toBe(false);
    expect(s.editor.edits).toEqual([]);
  });

  it('refuses a weak new password before the current one is checked, so it costs no guess', async () => {
    const s = setUp();
    const { token } = await signIn(s.core, 'alice', 'old-pw');
    const cases: Array<[string, string, string]> = [
      ['not-it', 'short-pw', 'too_short'],
      ['not-it', 'ALICE', 'too_short'],
      ['not-it', 'Password1234', 'common'],
      ['not-it', 'zzzzzzzzzzzzzzzz', 'common'],
      ['a long current one', 'a long current one', 'same_as_current'],
    ];
    for (const [current, password, reason] of cases)
      expect(await change(s, token, current, password)).toEqual({ ok: false, error: { code: 'weak_password', reason } });
    expect(s.core.audit.events.filter((e) => e.event === 'login_failed')).toEqual([]);
    expect(s.editor.edits).toEqual([]);
    expect((await change(s, token, 'old-pw', NEW)).ok).toBe(true);
  });

  it('refuses the username as the new password, in any case', async () => {
    const s = setUp();
    const { token } = await signIn(s.core, 'alexander-the-great', 'old-pw');
    expect(await change(s, token, 'old-pw', 'Alexander-The-Great')).toEqual({ ok: false, error: { code: 'weak_password', reason: 'same_as_username' } });
  });

  it('answers read_only_source for USERS accounts and LDAP without LDAP_PASSWORD_CHANGE, nothing counted', async () => {
    const s = setUp({ directory: false });
    const ursula = await signIn(s.core, 'ursula', 'old-pw');
    expect(await change(s, ursula.token, 'wrong', NEW)).toEqual({ ok: false, error: { code: 'read_only_source' } });
    const lars = await signIn(s.core, 'lars', 'old-pw');
    expect(await change(s, lars.token, 'old-pw', NEW)).toEqual({ ok: false, error: { code: 'read_only_source' } });
    expect(await s.get.execute({ sessionToken: lars.token, ip })).toEqual({ ok: true, value: { changeable: false } });
    expect(s.core.audit.events.filter((e) => e.event === 'login_failed')).toEqual([]);
  });

  it('changes a directory password through the directory with LDAP_PASSWORD_CHANGE, and ends the old sessions', async () => {
    const s = setUp();
    const lars = await signIn(s.core, 'lars', 'old-pw');
    const other = await signIn(s.core, 'lars', 'old-pw');
    expect(await s.get.execute({ sessionToken: lars.token, ip })).toEqual({ ok: true, value: { changeable: true } });
    const changed = await change(s, lars.token, 'old-pw', NEW);
    expect(changed.ok && (await passes(s, changed.value.token))).toBe(true);
    expect(await passes(s, other.token)).toBe(false);
    expect(s.editor.edits).toEqual([]);
    expect(s.core.audit.events).toContainEqual(expect.objectContaining({ event: 'password_changed', username: 'lars', source: 'ldap' }));
  });

  it("tells the directory's refusal of the new password as weak_password (directory_policy)", async () => {
    const s = setUp();
    s.directory.answer = 'refused';
    const lars = await signIn(s.core, 'lars', 'old-pw');
    expect(await change(s, lars.token, 'old-pw', NEW)).toEqual({ ok: false, error: { code: 'weak_password', reason: 'directory_policy' } });
    expect(await passes(s, lars.token)).toBe(true);
  });

  it('writes nothing when the users file changed on disk after it was read', async () => {
    const s = setUp();
    const { token } = await signIn(s.core, 'alice', 'old-pw');
    const realVersion = s.editor.version.bind(s.editor);
    s.editor.version = async () => {
      const v = await realVersion();
      s.editor.revision += 1; // a hand edit lands between the read and the write
      return v;
    };
    expect(await change(s, token, 'old-pw', NEW)).toEqual({ ok: false, error: { code: 'users_file_changed' } });
    expect(s.editor.edits).toEqual([]);
    expect(await passes(s, token)).toBe(true);
  });

  it('refuses a cross-site request, no session and a pending session', async () => {
    const s = setUp();
    const { token } = await signIn(s.core, 'alice', 'old-pw');
    expect(await change(s, token, 'old-pw', NEW, false)).toEqual({ ok: false, error: { code: 'cross_site_request' } });
    expect(await s.change.execute({ fromThisSite: true, current: 'old-pw', password: NEW, ip })).toEqual({ ok: false, error: { code: 'not_logged_in' } });
    const pending = await s.core.login.execute({ login: 'tom', password: 'old-pw', ip });
    expect(await change(s, pending.ok ? pending.value.token : '', 'old-pw', NEW)).toEqual({ ok: false, error: { code: 'not_logged_in' } });
    expect(s.editor.edits).toEqual([]);
  });

  it('answers store_unavailable when the user store is down, writing nothing', async () => {
    const s = setUp();
    const { token } = await signIn(s.core, 'alice', 'old-pw');
    s.core.users.down = true;
    expect(await change(s, token, 'old-pw', NEW)).toEqual({ ok: false, error: { code: 'store_unavailable' } });
    expect(s.editor.edits).toEqual([]);
  });
});
