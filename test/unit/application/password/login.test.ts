import { PasswordHasherBusyError } from '../../../../src/application/ports/password-hasher';
import { aUser } from '../../../support/builders';
import { makeCore } from '../../../support/core';

describe('LoginUseCase', () => {
  const ip = '198.51.100.7';

  it('logs in with the right password and returns a full session', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const result = await core.login.execute({ login: 'alice', password: 'pw', ip });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.session.username).toBe('alice');
    expect(result.value.session.totpPending).toBe(false);
    expect(result.value.session.expiresAt - core.clock.now()).toBe(core.settings.sessionLifetimeMs);
  });

  it('seals the session it creates: the token opens to that very session', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const result = await core.login.execute({ login: 'alice', password: 'pw', ip });
    if (!result.ok) throw new Error(result.error.code);
    expect(core.sealer.unseal(result.value.token)).toEqual(result.value.session);
  });

  it('finds the account by e-mail, case-insensitively', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const result = await core.login.execute({ login: 'ALICE@Example.com', password: 'pw', ip });
    expect(result.ok && result.value.session.username).toBe('alice');
  });

  it('gives unknown users and wrong passwords the same error, after the same hashing work', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const unknown = await core.login.execute({ login: 'mallory', password: 'pw', ip });
    const wrong = await core.login.execute({ login: 'alice', password: 'nope', ip });
    expect(unknown).toEqual({ ok: false, error: { code: 'invalid_credentials' } });
    expect(wrong).toEqual(unknown);
    expect(core.hasher.decoys).toBe(1);
    expect(core.hasher.verifications).toBe(2);
  });

  it("hands the client's address block to the password check, so the hasher can share its waiting line fairly", async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    await core.login.execute({ login: 'alice', password: 'pw', ip: '2001:db8:1:2::7' });
    await core.login.execute({ login: 'mallory', password: 'pw', ip: '2001:db8:1:2::8' });
    await core.login.execute({ login: 'alice', password: 'pw', ip: '198.51.100.7' });
    expect(core.hasher.requesters).toEqual(['2001:db8:1:2::/64', '2001:db8:1:2::/64', '198.51.100.7']);
  });

  it('counts failures from one IPv6 /64 against one address lock', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    // lockPolicy(3, 60): an address block is locked after 30 failures, whichever of its addresses they came from.
    for (let i = 0; i < 30; i += 1) await core.login.execute({ login: `name-${i}`, password: 'x', ip: `2001:db8:1:2::${(i + 1).toString(16)}` });
    expect(await core.login.execute({ login: 'alice', password: 'pw', ip: '2001:db8:1:2::ffff' })).toMatchObject({
      ok: false,
      error: { code: 'account_locked' },
    });
    expect((await core.login.execute({ login: 'alice', password: 'pw', ip: '2001:db8:1:3::1' })).ok).toBe(true);
  });

  it('gives an account with TOTP a short pending session only', async () => {
    const core = makeCore([aUser().named('tom').withPassword('pw').withTotp().build()]);
    const result = await core.login.execute({ login: 'tom', password: 'pw', ip });
    expect(result.ok && result.value.session.totpPending).toBe(true);
    if (result.ok) expect(result.value.session.expiresAt - core.clock.now()).toBeLessThanOrEqual(10 * 60 * 1000);
  });

  it('locks the account after the configured failures, even for the right password, then unlocks', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    for (let i = 0; i < 3; i += 1) await core.login.execute({ login: 'alice', password: 'bad', ip: `203.0.113.${i}` });
    const locked = await core.login.execute({ login: 'alice', password: 'pw', ip: '192.0.2.1' });
    expect(locked).toEqual({ ok: false, error: { code: 'account_locked', retryAfter: 60 } });
    core.clock.advance(60_001);
    expect((await core.login.execute({ login: 'alice', password: 'pw', ip })).ok).toBe(true);
  });

  it('shares one lock between the username and the e-mail of an account', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    await core.login.execute({ login: 'alice', password: 'bad', ip });
    await core.login.execute({ login: 'alice@example.com', password: 'bad', ip });
    await core.login.execute({ login: 'ALICE', password: 'bad', ip });
    const result = await core.login.execute({ login: 'alice@example.com', password: 'pw', ip });
    expect(!result.ok && result.error.code).toBe('account_locked');
  });

  it('reports an unreachable user store as unavailable, not as a wrong password', async () => {
    const core = makeCore([aUser().build()]);
    core.users.down = true;
    expect(await core.login.execute({ login: 'alice', password: 'x', ip })).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });
  it('never lets the pending TOTP session outlive a shorter configured session', async () => {
    const core = makeCore([aUser().named('tom').withPassword('pw').withTotp().build()], { settings: { sessionLifetimeMs: 60_000 } });
    const result = await core.login.execute({ login: 'tom', password: 'pw', ip });
    expect(result.ok && result.value.session.expiresAt - core.clock.now()).toBe(60_000);
  });

  it('records successes and failures without the password', async () => {
    const core = makeCore([aUser().named('alice').withPassword('hunter2').build()]);
    await core.login.execute({ login: 'alice', password: 'hunter3', ip });
    await core.login.execute({ login: 'alice', password: 'hunter2', ip });
    expect(core.audit.events).toEqual([
      { event: 'login_failed', login: 'alice', method: 'password', ip, reason: 'invalid_credentials' },
      { event: 'login_succeeded', username: 'alice', method: 'password', ip },
    ]);
    expect(JSON.stringify(core.audit.events)).not.toMatch(/hunter/);
  });

  it('trims the typed login and reports the stored username', async () => {
    const core = makeCore([aUser().named('Alice').withPassword('pw').build()]);
    const result = await core.login.execute({ login: '  alice ', password: 'pw', ip });
    expect(result.ok && result.value.session.username).toBe('Alice');
  });

  it('never locks when locking is disabled', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()], {
      settings: { lock: { maxAccountFailures: 0, maxAddressFailures: 0, lockMs: 0 } },
    });
    for (let i = 0; i < 50; i += 1) await core.login.execute({ login: 'alice', password: 'bad', ip });
    expect((await core.login.execute({ login: 'alice', password: 'pw', ip })).ok).toBe(true);
  });

  it('gives each login a fresh session id', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const a = await core.login.execute({ login: 'alice', password: 'pw', ip });
    const b = await core.login.execute({ login: 'alice', password: 'pw', ip });
    expect(a.ok && b.ok && a.value.session.id !== b.value.session.id).toBe(true);
  });
  it('answers an overloaded password check as unavailable, not as a wrong password, and counts no failure', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    core.hasher.verify = async () => {
      throw new PasswordHasherBusyError();
    };
    for (let i = 0; i < 5; i += 1) {
      expect(await core.login.execute({ login: 'alice', password: 'pw', ip })).toEqual({ ok: false, error: { code: 'store_unavailable' } });
    }
    core.hasher.verify = async (password, hash) => hash === `fake:${password}`;
    expect((await core.login.execute({ login: 'alice', password: 'pw', ip })).ok).toBe(true);
  });
});
