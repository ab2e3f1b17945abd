import { aUser } from '../../../support/builders';
import { FakeTotpVerifier } from '../../../support/fakes';
import { makeCore } from '../../../support/core';

describe('RequestAuthenticator: sessions follow their account as the store has it now', () => {
  const ip = '198.51.100.7';

  async function loggedIn(core: ReturnType<typeof makeCore>, login = 'alice'): Promise<string> {
    const result = await core.login.execute({ login, password: 'pw', ip });
    if (!result.ok) throw new Error('login failed');
    return core.sealer.seal(result.value.session);
  }

  it('lets a session through while its account exists', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const token = await loggedIn(core);
    expect((await core.authenticator.authenticate({ sessionToken: token, ip })).kind).toBe('session');
  });

  it('ends the session of an account removed from the store at its next request', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build(), aUser().named('bob').build()]);
    const token = await loggedIn(core);
    core.users.replace([aUser().named('bob').build()]);
    expect(await core.authenticator.authenticate({ sessionToken: token, ip })).toEqual({ kind: 'anonymous' });
    expect(await core.getCurrentUser.execute({ sessionToken: token, ip })).toEqual({ state: 'logged_out' });
  });

  it('keeps sessions working while the store is unavailable', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const token = await loggedIn(core);
    core.users.down = true;
    expect((await core.authenticator.authenticate({ sessionToken: token, ip })).kind).toBe('session');
  });

  it('does not ask the user store about sessions that came from elsewhere (OAuth)', async () => {
    const core = makeCore([]);
    const now = core.clock.now();
    const token = core.sealer.seal({
      id: 's1',
      username: 'octocat',
      name: 'Octo',
      email: 'octo@example.com',
      groups: [],
      provider: 'generic',
      oauth: true,
      totp: false,
      issuedAt: now,
      expiresAt: now + 60_000,
      totpPending: false,
      proven: {},
    });
    core.users.down = true;
    expect((await core.authenticator.authenticate({ sessionToken: token, ip })).kind).toBe('session');
  });

  it('ends the sessions made with a password once the password changed in the store, and audits it once', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build(), aUser().named('bob').withPassword('pw').build()]);
    const alice = await loggedIn(core);
    const bob = await loggedIn(core, 'bob');
    core.users.replace([aUser().named('alice').withPassword('new-pw').build(), aUser().named('bob').withPassword('pw').build()]);
    expect(await core.authenticator.authenticate({ sessionToken: alice, ip })).toEqual({ kind: 'anonymous' });
    expect(await core.authenticator.authenticate({ sessionToken: alice, ip })).toEqual({ kind: 'anonymous' });
    expect(core.audit.events.filter((e) => e.event === 'session_stale')).toEqual([
      expect.objectContaining({ event: 'session_stale', username: 'alice', reason: 'credential_changed' }),
    ]);
    expect((await core.authenticator.authenticate({ sessionToken: bob, ip })).kind).toBe('session');
    const fresh = await core.login.execute({ login: 'alice', password: 'new-pw', ip });
    if (!fresh.ok) throw new Error('login failed');
    expect((await core.authenticator.authenticate({ sessionToken: core.sealer.seal(fresh.value.session), ip })).kind).toBe('session');
  });

  it('ends the sessions of an account whose TOTP secret was replaced', async () => {
    const core = makeCore([aUser().named('tom').withPassword('pw').withTotp('JBSWY3DPEHPK3PXPJBSWY3DP').build()]);
    const pending = await core.login.execute({ login: 'tom', password: 'pw', ip });
    if (!pending.ok) throw new Error('login failed');
    const code = FakeTotpVerifier.codeAt('JBSWY3DPEHPK3PXPJBSWY3DP', core.clock.now());
    const full = await core.verifyTotp.execute({ sessionToken: core.sealer.seal(pending.value.session), code, ip });
    if (!full.ok) throw new Error('totp failed');
    const token = core.sealer.seal(full.value.session);
    expect((await core.authenticator.authenticate({ sessionToken: token, ip })).kind).toBe('session');
    core.users.replace([aUser().named('tom').withPassword('pw').withTotp('KRSXG5CTMVRXEZLUKRSXG5CT').build()]);
    expect(await core.authenticator.authenticate({ sessionToken: token, ip })).toEqual({ kind: 'anonymous' });
  });

  it('refuses the TOTP step of a password login made before the password changed', async () => {
    const core = makeCore([aUser().named('tom').withPassword('pw').withTotp().build()]);
    const pending = await core.login.execute({ login: 'tom', password: 'pw', ip });
    if (!pending.ok) throw new Error('login failed');
    core.users.replace([aUser().named('tom').withPassword('changed').withTotp().build()]);
    const code = FakeTotpVerifier.codeAt('JBSWY3DPEHPK3PXPJBSWY3DP', core.clock.now());
    const result = await core.verifyTotp.execute({ sessionToken: core.sealer.seal(pending.value.session), code, ip });
    expect(result).toEqual({ ok: false, error: { code: 'not_pending' } });
  });

  it("carries the account's current groups, name and e-mail, not those sealed at login", async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').withGroups('admins', 'staff').build()]);
    const token = await loggedIn(core);
    core.users.replace([aUser().named('alice').withPassword('pw').withGroups('staff').withEmail('a.new@example.com').build()]);
    const auth = await core.authenticator.authenticate({ sessionToken: token, ip });
    expect(auth.kind === 'session' ? auth.identity : null).toEqual(
      expect.objectContaining({ username: 'alice', groups: ['staff'], email: 'a.new@example.com', totp: false }),
    );
  });

  it('hands out the same identity object while the account object is the same (built once per account version)', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').withGroups('staff').build()]);
    const token = await loggedIn(core);
    const first = await core.authenticator.authenticate({ sessionToken: token, ip });
    const second = await core.authenticator.authenticate({ sessionToken: token, ip });
    expect(first.kind === 'session' && second.kind === 'session' && first.identity === second.identity).toBe(true);
  });

  it('refuses a password session that carries no credential fingerprint (sealed before sessions had one)', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const now = core.clock.now();
    const token = core.sealer.seal({
      id: 's0',
      username: 'alice',
      name: 'alice',
      email: 'alice@example.com',
      groups: ['admins'],
      provider: 'username',
      oauth: false,
      totp: false,
      issuedAt: now,
      expiresAt: now + 60_000,
      totpPending: false,
      proven: {},
    });
    expect(await core.authenticator.authenticate({ sessionToken: token, ip })).toEqual({ kind: 'anonymous' });
  });

  it('audits a session of a removed account as stale', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const token = await loggedIn(core);
    core.users.replace([]);
    await core.authenticator.authenticate({ sessionToken: token, ip });
    expect(core.audit.events).toContainEqual(expect.objectContaining({ event: 'session_stale', username: 'alice', reason: 'account_removed' }));
  });
});
