import { aUser, basicAuth } from '../../../support/builders';
import { makeCore, signIn } from '../../../support/core';
import { FakeTotpVerifier } from '../../../support/fakes';

describe('GetCurrentUserUseCase', () => {
  const ip = '198.51.100.7';
  const accounts = () => [aUser().named('alice').withPassword('pw').withGroups('admins').build(), aUser().named('tom').withPassword('pw').withTotp().build()];

  it('reports an anonymous caller as logged out', async () => {
    const core = makeCore(accounts());
    expect(await core.getCurrentUser.execute({ ip })).toEqual({ state: 'logged_out' });
  });

  it('reports the identity behind a live session', async () => {
    const core = makeCore(accounts());
    const { token } = await signIn(core, 'alice', 'pw');
    expect(await core.getCurrentUser.execute({ sessionToken: token, ip })).toEqual({
      state: 'logged_in',
      identity: expect.objectContaining({ username: 'alice', email: 'alice@example.com', groups: ['admins'], provider: 'username', oauth: false }),
      proven: { password: core.clock.now() },
    });
  });

  it("reports a session's password and code with the time each was proven (issue 33)", async () => {
    const core = makeCore(accounts());
    const { token: pending } = await signIn(core, 'tom', 'pw');
    const passwordAt = core.clock.now();
    core.clock.advance(20_000);
    const verified = await core.verifyTotp.execute({ sessionToken: pending, code: FakeTotpVerifier.codeAt('JBSWY3DPEHPK3PXPJBSWY3DP', core.clock.now()), ip });
    if (!verified.ok) throw new Error(verified.error.code);
    expect(await core.getCurrentUser.execute({ sessionToken: verified.value.token, ip })).toMatchObject({
      state: 'logged_in',
      proven: { password: passwordAt, totp: passwordAt + 20_000 },
    });
  });

  it('tells nothing of proofs for HTTP Basic', async () => {
    const core = makeCore(accounts());
    const result = await core.getCurrentUser.execute({ credentials: basicAuth('alice', 'pw'), ip });
    expect(result).not.toHaveProperty('proven');
  });

  it('reports a password-accepted TOTP login as pending, not logged in', async () => {
    const core = makeCore(accounts());
    const { token } = await signIn(core, 'tom', 'pw');
    expect(await core.getCurrentUser.execute({ sessionToken: token, ip })).toEqual({
      state: 'totp_pending',
      identity: expect.objectContaining({ username: 'tom' }),
    });
  });

  it('counts valid HTTP Basic credentials as logged in, with provider basic', async () => {
    const core = makeCore(accounts());
    expect(await core.getCurrentUser.execute({ credentials: basicAuth('alice', 'pw'), ip })).toEqual({
      state: 'logged_in',
      identity: expect.objectContaining({ username: 'alice', provider: 'basic' }),
    });
  });

  it('refuses HTTP Basic for an account with TOTP, even with the right password', async () => {
    const core = makeCore(accounts());
    expect(await core.getCurrentUser.execute({ credentials: basicAuth('tom', 'pw'), ip })).toEqual({ state: 'logged_out' });
  });

  it('reports wrong Basic credentials as logged out', async () => {
    const core = makeCore(accounts());
    for (const credentials of [basicAuth('alice', 'nope'), basicAuth('mallory', 'pw')]) {
      expect(await core.getCurrentUser.execute({ credentials, ip })).toEqual({ state: 'logged_out' });
    }
  });

  it('reports a tampered or expired cookie as logged out', async () => {
    const core = makeCore(accounts());
    const { token, session } = await signIn(core, 'alice', 'pw');
    const tampered = token.slice(0, 10) + (token[10] === 'A' ? 'B' : 'A') + token.slice(11);
    expect(await core.getCurrentUser.execute({ sessionToken: tampered, ip })).toEqual({ state: 'logged_out' });
    core.clock.set(session.expiresAt);
    expect(await core.getCurrentUser.execute({ sessionToken: token, ip })).toEqual({ state: 'logged_out' });
  });

  it('prefers the session cookie over Basic credentials', async () => {
    const core = makeCore(accounts());
    const { token } = await signIn(core, 'alice', 'pw');
    const result = await core.getCurrentUser.execute({ sessionToken: token, credentials: basicAuth('alice', 'pw'), ip });
    expect(result).toMatchObject({ state: 'logged_in', identity: { provider: 'username' } });
    expect(core.hasher.verifications).toBe(1);
  });

  it('reports logged out when the user store is unreachable or the account is locked', async () => {
    const core = makeCore(accounts());
    core.users.down = true;
    expect(await core.getCurrentUser.execute({ credentials: basicAuth('alice', 'pw'), ip })).toEqual({ state: 'logged_out' });
    core.users.down = false;
    for (let i = 0; i < 3; i += 1) await core.login.execute({ login: 'alice', password: 'bad', ip });
    expect(await core.getCurrentUser.execute({ credentials: basicAuth('alice', 'pw'), ip })).toEqual({ state: 'logged_out' });
  });
});
