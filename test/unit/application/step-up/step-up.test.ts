import type { SessionMethod } from '../../../../src/domain/login-methods';
import { STEP_UP_LIFETIME_MS } from '../../../../src/domain/step-up';
import { aUser } from '../../../support/builders';
import { makeCore, signIn, type Core } from '../../../support/core';
import { FakeTotpVerifier } from '../../../support/fakes';

const ip = '198.51.100.7';
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DP';
const HOUR = 3_600_000;
const tom = () => aUser().named('tom').withPassword('pw').withTotp(SECRET).withGroups('ops').build();
const ann = () => aUser().named('ann').withPassword('pw').build();

/** Logs tom in with his password and a code; returns the full session's cookie. */
async function tomLoggedIn(core: Core): Promise<string> {
  const pending = (await signIn(core, 'tom', 'pw', ip)).token;
  const done = await core.verifyTotp.execute({ sessionToken: pending, code: FakeTotpVerifier.codeAt(SECRET, core.clock.now()), ip });
  if (!done.ok) throw new Error(done.error.code);
  return done.value.token;
}

/** The sealed reference forward auth would have sent the session's browser with. */
function referenceFor(core: Core, token: string, methods: SessionMethod[], returnTo: string | null = 'https://wiki.example.com/admin'): string {
  const session = core.sealer.unseal(token);
  if (session === null) throw new Error('no session');
  return core.stepUpReferences.seal({
    sessionId: session.id,
    username: session.username,
    methods,
    maxAge: 600,
    returnTo,
    expiresAt: core.clock.now() + STEP_UP_LIFETIME_MS,
  });
}

describe('step-up (issue 33)', () => {
  it('a code keeps the session id and its index entry, moves the TOTP time forward and keeps the password time', async () => {
    const core = makeCore([tom()]);
    const token = await tomLoggedIn(core);
    const before = core.sealer.unseal(token)!;
    core.clock.advance(HOUR / 2);
    const result = await core.completeStepUp.execute({
      sessionToken: token,
      fromThisSite: true,
      reference: referenceFor(core, token, ['totp']),
      proof: { method: 'totp', code: FakeTotpVerifier.codeAt(SECRET, core.clock.now()) },
      ip,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const after = result.value.session;
    expect(after.id).toBe(before.id);
    expect([after.issuedAt, after.expiresAt]).toEqual([before.issuedAt, before.expiresAt]);
    expect(after.proven).toEqual({ password: before.proven.password, totp: core.clock.now() });
    expect(core.sealer.unseal(result.value.token)).toEqual(after);
    expect(result.value.returnTo).toBe('https://wiki.example.com/admin');
    expect((await core.index.list('tom')).map((s) => s.id)).toEqual([before.id]);
    expect(core.audit.events).toContainEqual({ event: 'stepped_up', username: 'tom', methods: ['totp'], ip });
  });

  it('a fresh code never meets a step-up that asks for a passkey', async () => {
    const core = makeCore([tom()]);
    const token = await tomLoggedIn(core);
    const result = await core.completeStepUp.execute({
      sessionToken: token,
      fromThisSite: true,
      reference: referenceFor(core, token, ['passkey']),
      proof: { method: 'totp', code: FakeTotpVerifier.codeAt(SECRET, core.clock.now()) },
      ip,
    });
    expect(result).toEqual({ ok: false, error: { code: 'step_up_method' } });
  });

  it('counts wrong answers toward the lock like failed logins, then refuses even the right one', async () => {
    const core = makeCore([ann()]);
    const token = (await signIn(core, 'ann', 'pw', ip)).token;
    const reference = referenceFor(core, token, ['password']);
    const attempt = (password: string) =>
      core.completeStepUp.execute({ sessionToken: token, fromThisSite: true, reference, proof: { method: 'password', password }, ip });
    // The lock of makeCore is 3 failures.
    for (let i = 0; i < 3; i += 1) expect((await attempt('wrong')).ok).toBe(false);
    const locked = await attempt('pw');
    expect(locked.ok === false && locked.error.code).toBe('account_locked');
    expect(core.audit.events.filter((e) => e.event === 'login_failed')).toHaveLength(3);
  });

  it('a password step-up proves the password again, nothing more', async () => {
    const core = makeCore([ann()]);
    const token = (await signIn(core, 'ann', 'pw', ip)).token;
    core.clock.advance(HOUR / 2);
    const result = await core.completeStepUp.execute({
      sessionToken: token,
      fromThisSite: true,
      reference: referenceFor(core, token, ['password']),
      proof: { method: 'password', password: 'pw' },
      ip,
    });
    expect(result.ok && result.value.session.proven).toEqual({ password: core.clock.now() });
  });

  it('refuses a reference made for another session, an expired one, a forged one and a cross-site request', async () => {
    const core = makeCore([ann()]);
    const mine = (await signIn(core, 'ann', 'pw', ip)).token;
    const other = (await signIn(core, 'ann', 'pw', ip)).token;
    const proof = { method: 'password', password: 'pw' } as const;
    const run = (reference: string, fromThisSite = true) => core.completeStepUp.execute({ sessionToken: mine, fromThisSite, reference, proof, ip });
    expect(await run(referenceFor(core, other, ['password']))).toEqual({ ok: false, error: { code: 'invalid_step_up' } });
    expect(await run('s1.garbage')).toEqual({ ok: false, error: { code: 'invalid_step_up' } });
    const expiring = referenceFor(core, mine, ['password']);
    core.clock.advance(STEP_UP_LIFETIME_MS);
    expect(await run(expiring)).toEqual({ ok: false, error: { code: 'invalid_step_up' } });
    expect(await run(referenceFor(core, mine, ['password']), false)).toEqual({ ok: false, error: { code: 'cross_site_request' } });
    expect(core.audit.events.filter((e) => e.event === 'login_failed')).toHaveLength(0);
  });

  it('tells the login page only the methods the account holds, and refuses one it does not', async () => {
    const core = makeCore([ann()]);
    const token = (await signIn(core, 'ann', 'pw', ip)).token;
    const reference = referenceFor(core, token, ['totp', 'passkey', 'password']);
    expect(await core.describeStepUp.execute({ sessionToken: token, reference, ip })).toEqual({
      ok: true,
      value: { username: 'ann', methods: ['password'], maxAge: 600, returnTo: 'https://wiki.example.com/admin' },
    });
    const result = await core.completeStepUp.execute({
      sessionToken: token,
      fromThisSite: true,
      reference: referenceFor(core, token, ['totp']),
      proof: { method: 'totp', code: '123456' },
      ip,
    });
    expect(result).toEqual({ ok: false, error: { code: 'step_up_method' } });
    expect(await core.describeStepUp.execute({ reference, ip })).toEqual({ ok: false, error: { code: 'not_logged_in' } });
  });
});

describe('forward auth sends a session that does not meet a requirement to a step-up', () => {
  const forwarded = { proxy: 'traefik', proto: 'https', host: 'wiki.example.com', uri: '/admin/users' } as const;
  const stepUpPolicy = { decide: () => ({ kind: 'step_up_required', methods: ['passkey'], maxAge: 300, app: 'wiki' }) as const };

  it('refuses with a sealed reference bound to the session that opens to the methods, the age and the way back', async () => {
    const core = makeCore([ann()], { policy: stepUpPolicy });
    const { session, token } = await signIn(core, 'ann', 'pw', ip);
    const result = await core.authorize.execute({ forwarded, ip, sessionToken: token });
    expect(result.ok).toBe(false);
    if (result.ok || result.error.code !== 'step_up_required') throw new Error('expected a step-up');
    expect(result.error).toMatchObject({ methods: ['passkey'], maxAge: 300, app: 'wiki' });
    expect(core.stepUpReferences.unseal(result.error.reference)).toEqual({
      sessionId: session.id,
      username: 'ann',
      methods: ['passkey'],
      maxAge: 300,
      returnTo: 'https://wiki.example.com/admin/users',
      expiresAt: core.clock.now() + STEP_UP_LIFETIME_MS,
    });
    expect(core.audit.events).toContainEqual(expect.objectContaining({ event: 'access_denied', username: 'ann', reason: 'step_up_required' }));
  });

  it('refuses HTTP Basic outright: it cannot step up', async () => {
    const core = makeCore([ann()], { policy: stepUpPolicy });
    const result = await core.authorize.execute({ forwarded, ip, credentials: { kind: 'basic', username: 'ann', password: 'pw' } });
    expect(result).toMatchObject({ ok: false, error: { code: 'forbidden', reason: 'step_up_impossible', app: 'wiki' } });
  });
});
