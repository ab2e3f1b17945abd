import { aUser } from '../../../support/builders';
import { makeCore, signIn, type Core } from '../../../support/core';
import { FakeTotpVerifier } from '../../../support/fakes';

describe('VerifyTotpUseCase', () => {
  const ip = '198.51.100.7';
  const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DP';
  const tom = () => aUser().named('tom').withPassword('pw').withTotp(SECRET).withGroups('ops').build();
  const code = (core: Core, offsetSteps = 0): string => FakeTotpVerifier.codeAt(SECRET, core.clock.now(), offsetSteps);
  const pending = async (core: Core): Promise<string> => (await signIn(core, 'tom', 'pw', ip)).token;

  it('turns a pending session into a full one for the current code', async () => {
    const core = makeCore([tom()]);
    const token = await pending(core);
    const result = await core.verifyTotp.execute({ sessionToken: token, code: code(core), ip });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { session } = result.value;
    expect(session).toMatchObject({ username: 'tom', groups: ['ops'], provider: 'username', oauth: false, totp: true, totpPending: false });
    expect(session.id).not.toBe(core.sealer.unseal(token)?.id);
    expect(session.issuedAt).toBe(core.clock.now());
    expect(session.expiresAt).toBe(core.clock.now() + core.settings.sessionLifetimeMs);
    expect(core.audit.events).toContainEqual({ event: 'login_succeeded', username: 'tom', method: 'totp', ip });
    expect(core.sealer.unseal(result.value.token)).toEqual(session);
  });

  it('accepts the code of the previous and of the next time step', async () => {
    for (const offset of [-1, 1]) {
      const core = makeCore([tom()]);
      const result = await core.verifyTotp.execute({ sessionToken: await pending(core), code: code(core, offset), ip });
      expect(result.ok).toBe(true);
    }
  });

  it('refuses a code two steps away as invalid', async () => {
    const core = makeCore([tom()]);
    const token = await pending(core);
    expect(await core.verifyTotp.execute({ sessionToken: token, code: code(core, 2), ip })).toEqual({ ok: false, error: { code: 'invalid_code' } });
    expect(await core.verifyTotp.execute({ sessionToken: token, code: code(core, -2), ip })).toEqual({ ok: false, error: { code: 'invalid_code' } });
  });

  it('refuses a code that was already used by the account, even from a new login', async () => {
    const core = makeCore([tom()]);
    const used = code(core);
    expect((await core.verifyTotp.execute({ sessionToken: await pending(core), code: used, ip })).ok).toBe(true);
    const again = await core.verifyTotp.execute({ sessionToken: await pending(core), code: used, ip });
    expect(again).toEqual({ ok: false, error: { code: 'totp_replayed' } });
  });

  it('refuses an older code once a newer one was used', async () => {
    const core = makeCore([tom()]);
    expect((await core.verifyTotp.execute({ sessionToken: await pending(core), code: code(core, 1), ip })).ok).toBe(true);
    const older = await core.verifyTotp.execute({ sessionToken: await pending(core), code: code(core), ip });
    expect(older).toEqual({ ok: false, error: { code: 'totp_replayed' } });
  });

  it('accepts the next code after the clock moves on', async () => {
    const core = makeCore([tom()]);
    expect((await core.verifyTotp.execute({ sessionToken: await pending(core), code: code(core), ip })).ok).toBe(true);
    core.clock.advance(30_000);
    expect((await core.verifyTotp.execute({ sessionToken: await pending(core), code: code(core), ip })).ok).toBe(true);
  });

  it('revokes the pending session once it is used, so it cannot be replayed', async () => {
    const core = makeCore([tom()]);
    const token = await pending(core);
    expect((await core.verifyTotp.execute({ sessionToken: token, code: code(core), ip })).ok).toBe(true);
    core.clock.advance(30_000);
    expect(await core.verifyTotp.execute({ sessionToken: token, code: code(core), ip })).toEqual({ ok: false, error: { code: 'not_pending' } });
    expect(await core.getCurrentUser.execute({ sessionToken: token, ip })).toEqual({ state: 'logged_out' });
  });

  it('refuses a pending session that has expired', async () => {
    const core = makeCore([tom()]);
    const token = await pending(core);
    const { expiresAt } = core.sealer.unseal(token) ?? { expiresAt: 0 };
    core.clock.set(expiresAt);
    expect(await core.verifyTotp.execute({ sessionToken: token, code: code(core), ip })).toEqual({ ok: false, error: { code: 'not_pending' } });
  });

  it('refuses a pending session revoked by logout', async () => {
    const core = makeCore([tom()]);
    const token = await pending(core);
    expect(await core.logout.execute({ sessionToken: token, fromThisSite: true })).toEqual({
      ok: true,
      value: { revoked: true, sessionId: expect.any(String) },
    });
    expect(await core.verifyTotp.execute({ sessionToken: token, code: code(core), ip })).toEqual({ ok: false, error: { code: 'not_pending' } });
  });

  it('refuses without a pending session: none, forged, or already complete', async () => {
    const core = makeCore([tom(), aUser().named('alice').withPassword('pw').build()]);
    const full = (await signIn(core, 'alice', 'pw')).token;
    for (const sessionToken of [undefined, '', 'v1.forged', full]) {
      expect(await core.verifyTotp.execute({ sessionToken, code: code(core), ip })).toEqual({ ok: false, error: { code: 'not_pending' } });
    }
  });

  it('refuses when the account lost its second factor or was removed since the password step', async () => {
    const core = makeCore([tom()]);
    const token = await pending(core);
    core.users.replace([aUser().named('tom').withPassword('pw').build()]);
    expect(await core.verifyTotp.execute({ sessionToken: token, code: code(core), ip })).toEqual({ ok: false, error: { code: 'not_pending' } });
    core.users.replace([]);
    expect(await core.verifyTotp.execute({ sessionToken: token, code: code(core), ip })).toEqual({ ok: false, error: { code: 'not_pending' } });
  });

  it('counts wrong codes towards the account lock shared with passwords', async () => {
    const core = makeCore([tom()]);
    const token = await pending(core);
    for (let i = 0; i < 3; i += 1) await core.verifyTotp.execute({ sessionToken: token, code: '000000', ip: `203.0.113.${i}` });
    expect(await core.verifyTotp.execute({ sessionToken: token, code: code(core), ip })).toEqual({
      ok: false,
      error: { code: 'account_locked', retryAfter: 60 },
    });
    expect(await core.login.execute({ login: 'tom', password: 'pw', ip })).toEqual({ ok: false, error: { code: 'account_locked', retryAfter: 60 } });
  });

  it('adds code failures to earlier password failures', async () => {
    const core = makeCore([tom()]);
    const token = await pending(core);
    await core.login.execute({ login: 'tom', password: 'bad', ip });
    await core.login.execute({ login: 'tom', password: 'bad', ip });
    expect(await core.verifyTotp.execute({ sessionToken: token, code: '000000', ip })).toEqual({ ok: false, error: { code: 'invalid_code' } });
    expect(await core.verifyTotp.execute({ sessionToken: token, code: code(core), ip })).toMatchObject({ ok: false, error: { code: 'account_locked' } });
  });

  it('counts replays as failures too', async () => {
    const core = makeCore([tom()]);
    const used = code(core);
    await core.verifyTotp.execute({ sessionToken: await pending(core), code: used, ip });
    const token = await pending(core);
    for (let i = 0; i < 3; i += 1) await core.verifyTotp.execute({ sessionToken: token, code: used, ip });
    core.clock.advance(30_000);
    expect(await core.verifyTotp.execute({ sessionToken: token, code: code(core), ip })).toMatchObject({ ok: false, error: { code: 'account_locked' } });
  });

  it('clears earlier failures after a good code', async () => {
    const core = makeCore([tom()]);
    let token = await pending(core);
    await core.verifyTotp.execute({ sessionToken: token, code: '000000', ip });
    await core.verifyTotp.execute({ sessionToken: token, code: '000000', ip });
    expect((await core.verifyTotp.execute({ sessionToken: token, code: code(core), ip })).ok).toBe(true);
    token = await pending(core);
    await core.verifyTotp.execute({ sessionToken: token, code: '000000', ip });
    await core.verifyTotp.execute({ sessionToken: token, code: '000000', ip });
    core.clock.advance(30_000);
    expect((await core.verifyTotp.execute({ sessionToken: token, code: code(core), ip })).ok).toBe(true);
  });

  it('records failed codes without the code itself', async () => {
    const core = makeCore([tom()]);
    await core.verifyTotp.execute({ sessionToken: await pending(core), code: '123456', ip });
    expect(core.audit.events).toContainEqual({ event: 'login_failed', login: 'tom', method: 'totp', ip, reason: 'invalid_code' });
    expect(JSON.stringify(core.audit.events)).not.toContain('123456');
  });

  it('reports an unreachable user store as unavailable', async () => {
    const core = makeCore([tom()]);
    const token = await pending(core);
    core.users.down = true;
    expect(await core.verifyTotp.execute({ sessionToken: token, code: code(core), ip })).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });
});
