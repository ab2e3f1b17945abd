import { aUser, basicAuth } from '../../../support/builders';
import { makeCore, signIn } from '../../../support/core';

describe('RequestAuthenticator', () => {
  const ip = '198.51.100.7';
  const alice = (password = 'pw') => aUser().named('alice').withPassword(password).build();

  describe('sessions', () => {
    it('finds the live session in a cookie', async () => {
      const core = makeCore([alice()]);
      const { token, session } = await signIn(core, 'alice', 'pw');
      // The identity carries what the session proved and when (issue 33), for paths requirements and amr.
      const identity = {
        username: 'alice',
        name: 'alice',
        email: 'alice@example.com',
        groups: [],
        provider: 'username',
        oauth: false,
        totp: false,
        proven: session.proven,
      };
      expect(await core.authenticator.authenticate({ sessionToken: token, ip })).toEqual({ kind: 'session', identity, session });
      expect(session.proven.password).toEqual(expect.any(Number));
    });

    it('ignores absent, forged, expired and revoked sessions', async () => {
      const core = makeCore([alice()]);
      const { token, session } = await signIn(core, 'alice', 'pw');
      for (const sessionToken of [undefined, '', 'forged']) expect(await core.authenticator.session(sessionToken)).toBeNull();
      await core.revoked.revoke(session.id, session.expiresAt);
      expect(await core.authenticator.session(token)).toBeNull();
      const second = await signIn(core, 'alice', 'pw');
      core.clock.set(second.session.expiresAt);
      expect(await core.authenticator.session(second.token)).toBeNull();
    });

    it('refuses a session issued more than a minute in the future (a forged or skewed clock)', async () => {
      const core = makeCore([alice()]);
      const { session } = await signIn(core, 'alice', 'pw');
      const future = core.sealer.seal({ ...session, issuedAt: core.clock.now() + 120_000, expiresAt: core.clock.now() + 3_600_000 });
      expect(await core.authenticator.session(future)).toBeNull();
    });
  });

  describe('HTTP Basic', () => {
    it('verifies the password once, then serves the same header from the cache', async () => {
      const core = makeCore([alice()]);
      const header = basicAuth('alice', 'pw');
      expect(await core.authenticator.authenticate({ credentials: header, ip })).toMatchObject({ kind: 'basic', identity: { username: 'alice' } });
      const checks = core.hasher.verifications;
      for (let i = 0; i < 5; i += 1) {
        expect(await core.authenticator.authenticate({ credentials: header, ip })).toMatchObject({
          kind: 'basic',
          identity: { username: 'alice', provider: 'basic' },
        });
      }
      expect(core.hasher.verifications).toBe(checks);
    });

    it('caches only verified headers: a wrong password is checked every time', async () => {
      const core = makeCore([alice()], { settings: { lock: { maxAccountFailures: 0, maxAddressFailures: 0, lockMs: 0 } } });
      await core.authenticator.authenticate({ credentials: basicAuth('alice', 'pw'), ip });
      const checks = core.hasher.verifications;
      for (let i = 0; i < 3; i += 1)
        expect(await core.authenticator.authenticate({ credentials: basicAuth('alice', 'wrong'), ip })).toEqual({ kind: 'anonymous' });
      expect(core.hasher.verifications).toBe(checks + 3);
    });

    it('verifies again once the cache entry has lived its time', async () => {
      const core = makeCore([alice()]);
      const header = basicAuth('alice', 'pw');
      await core.authenticator.authenticate({ credentials: header, ip });
      const checks = core.hasher.verifications;
      core.clock.advance(core.settings.basicCacheTtlMs);
      expect(await core.authenticator.authenticate({ credentials: header, ip })).toMatchObject({ kind: 'basic' });
      expect(core.hasher.verifications).toBe(checks + 1);
    });

    it('verifies every request when the cache is disabled', async () => {
      const core = makeCore([alice()], { settings: { basicCacheTtlMs: 0 } });
      for (let i = 0; i < 3; i += 1) await core.authenticator.authenticate({ credentials: basicAuth('alice', 'pw'), ip });
      expect(core.hasher.verifications).toBe(3);
    });

    it('drops a cached header when the password changes (credential version)', async () => {
      const core = makeCore([alice('old')]);
      const old = basicAuth('alice', 'old');
      await core.authenticator.authenticate({ credentials: old, ip });
      core.users.replace([alice('new')]);
      const checks = core.hasher.verifications;
      expect(await core.authenticator.authenticate({ credentials: old, ip })).toEqual({ kind: 'anonymous' });
      expect(core.hasher.verifications).toBe(checks + 1);
      expect(await core.authenticator.authenticate({ credentials: basicAuth('alice', 'new'), ip })).toMatchObject({ kind: 'basic' });
    });

    it('drops a cached header when the account is removed', async () => {
      const core = makeCore([alice()]);
      const header = basicAuth('alice', 'pw');
      await core.authenticator.authenticate({ credentials: header, ip });
      core.users.replace([]);
      expect(await core.authenticator.authenticate({ credentials: header, ip })).toEqual({ kind: 'anonymous' });
      expect(core.verified.get(core.verified.keyFor(header), core.clock.now())).toBeNull();
    });

    it('drops a cached header when the account gains a second factor', async () => {
      const core = makeCore([alice()]);
      const header = basicAuth('alice', 'pw');
      await core.authenticator.authenticate({ credentials: header, ip });
      core.users.replace([aUser().named('alice').withPassword('pw').withTotp().build()]);
      expect(await core.authenticator.authenticate({ credentials: header, ip })).toEqual({ kind: 'anonymous' });
    });

    it('lets a lock win over a cached header, and serves it again once the lock ends', async () => {
      const core = makeCore([alice()]);
      const header = basicAuth('alice', 'pw');
      await core.authenticator.authenticate({ credentials: header, ip });
      for (let i = 0; i < 3; i += 1) await core.login.execute({ login: 'alice', password: 'bad', ip: '203.0.113.1' });
      expect(await core.authenticator.authenticate({ credentials: header, ip })).toEqual({ kind: 'locked', retryAfter: 60 });
      core.clock.advance(60_000);
      expect(await core.authenticator.authenticate({ credentials: header, ip })).toMatchObject({ kind: 'basic' });
    });

    it('locks an account after repeated wrong Basic passwords, even for the right one', async () => {
      const core = makeCore([alice()]);
      for (let i = 0; i < 3; i += 1) await core.authenticator.authenticate({ credentials: basicAuth('alice', `bad${i}`), ip });
      expect(await core.authenticator.authenticate({ credentials: basicAuth('alice', 'pw'), ip: '192.0.2.9' })).toEqual({ kind: 'locked', retryAfter: 60 });
      expect(core.audit.events).toContainEqual({ event: 'login_failed', login: 'alice', method: 'basic', ip, reason: 'invalid_credentials' });
    });

    it('counts Basic failures under the account name, whatever case or e-mail was typed', async () => {
      const core = makeCore([alice()]);
      for (const user of ['ALICE', 'alice@example.com', 'Alice']) await core.authenticator.authenticate({ credentials: basicAuth(user, 'bad'), ip });
      expect(await core.login.execute({ login: 'alice', password: 'pw', ip })).toMatchObject({ ok: false, error: { code: 'account_locked' } });
    });

    it('checks unknown users against the decoy hash', async () => {
      const core = makeCore([alice()]);
      expect(await core.authenticator.authenticate({ credentials: basicAuth('mallory', 'pw'), ip })).toEqual({ kind: 'anonymous' });
      expect(core.hasher.decoys).toBe(1);
    });

    it('refuses an account with TOTP without counting a failure', async () => {
      const core = makeCore([aUser().named('tom').withPassword('pw').withTotp().build()]);
      for (let i = 0; i < 5; i += 1) expect(await core.authenticator.authenticate({ credentials: basicAuth('tom', 'pw'), ip })).toEqual({ kind: 'anonymous' });
      expect(await core.login.execute({ login: 'tom', password: 'pw', ip })).toMatchObject({ ok: true });
    });

    it('reports an unreachable store as unavailable, on both the cache and the full path', async () => {
      const core = makeCore([alice()]);
      const header = basicAuth('alice', 'pw');
      core.users.down = true;
      expect(await core.authenticator.authenticate({ credentials: header, ip })).toEqual({ kind: 'unavailable' });
      core.users.down = false;
      await core.authenticator.authenticate({ credentials: header, ip });
      core.users.down = true;
      expect(await core.authenticator.authenticate({ credentials: header, ip })).toEqual({ kind: 'unavailable' });
    });
  });

  describe('per-address lock', () => {
    it('locks a client address after ten times the account threshold', async () => {
      const core = makeCore([alice()]);
      const attacker = '203.0.113.66';
      // Each invented name fails once: no account reaches its own threshold of 3.
      for (let i = 0; i < 29; i += 1) await core.login.execute({ login: `bogus-${i}`, password: 'x', ip: attacker });
      expect(await core.login.execute({ login: 'alice', password: 'pw', ip: attacker })).toMatchObject({ ok: true });
      await core.login.execute({ login: 'bogus-29', password: 'x', ip: attacker });
      expect(await core.login.execute({ login: 'alice', password: 'pw', ip: attacker })).toEqual({
        ok: false,
        error: { code: 'account_locked', retryAfter: 60 },
      });
    });

    it('does not lock a real account used from another address when one address floods bogus names', async () => {
      const core = makeCore([alice()]);
      const attacker = '203.0.113.66';
      for (let i = 0; i < 500; i += 1) {
        await core.authenticator.authenticate({ credentials: basicAuth(`bogus-${i}`, 'x'), ip: attacker });
        await core.login.execute({ login: `bogus-login-${i}`, password: 'x', ip: attacker });
      }
      expect(await core.authenticator.authenticate({ credentials: basicAuth('bogus-new', 'x'), ip: attacker })).toMatchObject({ kind: 'locked' });
      expect(await core.login.execute({ login: 'alice', password: 'pw', ip: '192.0.2.10' })).toMatchObject({ ok: true });
      expect(await core.authenticator.authenticate({ credentials: basicAuth('alice', 'pw'), ip: '192.0.2.10' })).toMatchObject({ kind: 'basic' });
    });

    it('refuses a cached header from a locked address, so the cache is no oracle for guesses the lock refuses', async () => {
      const core = makeCore([alice()]);
      const attacker = '203.0.113.66';
      const header = basicAuth('alice', 'pw');
      // alice's own client keeps her header in the cache.
      expect(await core.authenticator.authenticate({ credentials: header, ip: '192.0.2.10' })).toMatchObject({ kind: 'basic' });
      // An address that sprayed guesses over many names is locked...
      for (let i = 0; i < 30; i += 1) await core.authenticator.authenticate({ credentials: basicAuth(`bogus-${i}`, 'x'), ip: attacker });
      // ...so its wrong guesses and its right one get the same answer, and alice's own client still passes.
      expect(await core.authenticator.authenticate({ credentials: basicAuth('alice', 'guess'), ip: attacker })).toMatchObject({ kind: 'locked' });
      expect(await core.authenticator.authenticate({ credentials: header, ip: attacker })).toMatchObject({ kind: 'locked' });
      expect(await core.authenticator.authenticate({ credentials: header, ip: '192.0.2.10' })).toMatchObject({ kind: 'basic' });
    });

    it('stops hashing for a locked address, so a flood costs no bcrypt work', async () => {
      const core = makeCore([alice()]);
      const attacker = '203.0.113.66';
      for (let i = 0; i < 200; i += 1) await core.login.execute({ login: `bogus-${i}`, password: 'x', ip: attacker });
      expect(core.hasher.verifications).toBe(30);
    });
  });
});
