import { InMemorySessionIndex } from '../../../../src/adapters/state/memory/in-memory-session-index';
import type { SessionSighting } from '../../../../src/application/ports/session-index';
import { LastSeenRecorder } from '../../../../src/application/sessions/last-seen-recorder';
import { lastUseGranularityMs } from '../../../../src/domain/session-lifetime';
import { aUser } from '../../../support/builders';
import { makeCore, signIn } from '../../../support/core';
import { FakeTotpVerifier, FixedClock } from '../../../support/fakes';

const ip = '198.51.100.7';
const forwarded = { proxy: 'traefik', proto: 'https', host: 'app.example.com', uri: '/' } as const;
const alice = () => aUser().named('alice').withPassword('pw').build();
const MINUTE = 60_000;
const IDLE = 15 * MINUTE;
const timing = { idleTimeoutMs: IDLE, granularityMs: lastUseGranularityMs(IDLE) };

/** The in-memory index, counting its writes and reads. */
class CountingIndex extends InMemorySessionIndex {
  touched = 0;
  reads = 0;
  override async touch(sightings: readonly SessionSighting[]): Promise<void> {
    this.touched += sightings.length;
    await super.touch(sightings);
  }
  override async lastSeen(id: string): Promise<number | null> {
    this.reads += 1;
    return super.lastSeen(id);
  }
}

async function registered(index: InMemorySessionIndex, clock: FixedClock, id: string): Promise<void> {
  const at = clock.now();
  await index.register({ id, username: 'u', method: 'password', userAgent: '', address: ip, startedAt: at, expiresAt: at + 8 * 60 * MINUTE, lastSeenAt: at });
}

describe('the batching last-use recorder', () => {
  it('writes at most once per granularity, however many forward-auth requests use the session', async () => {
    const clock = new FixedClock();
    const index = new CountingIndex(clock);
    await registered(index, clock, 's1');
    const recorder = new LastSeenRecorder(index, clock, undefined, timing);
    // A request every second for 10 minutes, flushed every granularity as the timer does.
    for (let second = 0; second < 600; second += 1) {
      expect(recorder.idle('s1', clock.now())).toBe(false);
      recorder.seen('s1');
      if (second % (timing.granularityMs / 1000) === 0) await recorder.flush();
      clock.advance(1000);
    }
    await recorder.flush();
    expect(index.touched).toBeLessThanOrEqual(600_000 / timing.granularityMs + 1);
    expect(index.reads).toBe(0);
  });

  it('a session used here is idle once unused for the timeout, after asking the shared index once', async () => {
    const clock = new FixedClock();
    const index = new CountingIndex(clock);
    await registered(index, clock, 's1');
    const recorder = new LastSeenRecorder(index, clock, undefined, timing);
    recorder.seen('s1');
    clock.advance(IDLE - 1);
    expect(recorder.idle('s1', clock.now() - IDLE)).toBe(false);
    clock.advance(1);
    await expect(recorder.idle('s1', 0)).resolves.toBe(true);
    expect(recorder.idle('s1', 0)).toBe(true);
    expect(index.reads).toBe(1);
  });

  it('counts a use another replica wrote to the shared index', async () => {
    const clock = new FixedClock();
    const index = new CountingIndex(clock);
    await registered(index, clock, 's1');
    const issuedAt = clock.now();
    const here = new LastSeenRecorder(index, clock, undefined, timing);
    const there = new LastSeenRecorder(index, clock, undefined, timing);
    clock.advance(IDLE - 2 * timing.granularityMs);
    there.seen('s1');
    clock.advance(timing.granularityMs);
    await there.flush();
    clock.advance(2 * timing.granularityMs);
    // Past the timeout since login, but used elsewhere within it: here asks the index, and lets it through.
    await expect(here.idle('s1', issuedAt)).resolves.toBe(false);
    clock.advance(IDLE);
    await expect(here.idle('s1', issuedAt)).resolves.toBe(true);
  });

  it('with the timeout off, nothing is ever idle and nothing is read', () => {
    const clock = new FixedClock();
    const index = new CountingIndex(clock);
    const recorder = new LastSeenRecorder(index, clock);
    clock.advance(365 * 24 * 60 * MINUTE);
    expect(recorder.idle('s1', 0)).toBe(false);
    expect(index.reads).toBe(0);
  });
});

describe('idle sessions through forward auth', () => {
  it('lets a session through while it is used, and refuses it once unused for the timeout', async () => {
    const core = makeCore([alice()], { settings: { idleTimeoutMs: IDLE, sessionLifetimeMs: 8 * 60 * MINUTE } });
    const { token } = await signIn(core, 'alice', 'pw');
    for (let i = 0; i < 6; i += 1) {
      core.clock.advance(IDLE - MINUTE);
      expect((await core.authorize.execute({ forwarded, sessionToken: token, ip })).ok).toBe(true);
      await core.lastSeen.flush();
    }
    core.clock.advance(IDLE);
    const refused = await core.authorize.execute({ forwarded, sessionToken: token, ip });
    expect(!refused.ok && refused.error.code).toBe('unauthenticated');
    await core.authorize.execute({ forwarded, sessionToken: token, ip });
    expect(core.audit.events.filter((e) => e.event === 'session_stale')).toEqual([expect.objectContaining({ username: 'alice', reason: 'idle' })]);
  });
});

describe('renewed sessions through forward auth', () => {
  const settings = { sessionLifetimeMs: 60 * MINUTE, maxLifetimeMs: 150 * MINUTE };

  it('renews a session used past half its life: same id, a later expiry, never past the bound', async () => {
    const core = makeCore([alice()], { settings });
    let { token, session } = await signIn(core, 'alice', 'pw');
    const { id, issuedAt } = session;
    core.clock.advance(29 * MINUTE);
    const early = await core.authorize.execute({ forwarded, sessionToken: token, ip });
    expect(early.ok && early.value.renewed).toBeUndefined();
    const expiries: number[] = [];
    // Used every 25 minutes: renewed at 54 (6 minutes left) and at 104, then no more (the bound).
    for (let i = 0; i < 4; i += 1) {
      core.clock.advance(25 * MINUTE);
      const result = await core.authorize.execute({ forwarded, sessionToken: token, ip });
      if (!result.ok) throw new Error(`refused at ${i}: ${result.error.code}`);
      if (result.value.renewed === undefined) continue;
      expect(result.value.renewed.session.id).toBe(id);
      expect(result.value.renewed.host).toBe('app.example.com');
      expect(result.value.renewed.maxAgeMs).toBe(result.value.renewed.session.expiresAt - core.clock.now());
      ({ token, session } = result.value.renewed);
      expiries.push(session.expiresAt);
    }
    expect(expiries).toEqual([issuedAt + 114 * MINUTE, issuedAt + 150 * MINUTE]);
    core.clock.advance(25 * MINUTE);
    const ended = await core.authorize.execute({ forwarded, sessionToken: token, ip });
    expect(!ended.ok && ended.error.code).toBe('unauthenticated');
  });

  it('is indexed and revoked until its bound, so "sign out everywhere" still ends a renewed copy', async () => {
    const core = makeCore([alice()], { settings });
    const { token, session } = await signIn(core, 'alice', 'pw');
    expect((await core.index.list('alice'))[0].expiresAt).toBe(session.issuedAt + 150 * MINUTE);
    core.clock.advance(40 * MINUTE);
    const renewed = await core.authorize.execute({ forwarded, sessionToken: token, ip });
    if (!renewed.ok || renewed.value.renewed === undefined) throw new Error('not renewed');
    // Logged out with the old cookie: the renewed copy (a stolen one, say) must not outlive the revocation.
    await core.logout.execute({ sessionToken: token, fromThisSite: true });
    core.clock.advance(30 * MINUTE);
    const stolen = await core.authorize.execute({ forwarded, sessionToken: renewed.value.renewed.token, ip });
    expect(!stolen.ok && stolen.error.code).toBe('unauthenticated');
  });

  it('requests sent together with the old cookie share one renewal, and a stepped-up copy gets its own', async () => {
    const core = makeCore([alice()], { settings });
    const { token, session } = await signIn(core, 'alice', 'pw');
    core.clock.advance(40 * MINUTE);
    const [first, second] = await Promise.all([1, 2].map(() => core.authorize.execute({ forwarded, sessionToken: token, ip })));
    const renewedToken = (r: typeof first): string | undefined => (r.ok ? r.value.renewed?.token : undefined);
    expect(renewedToken(first)).toBeDefined();
    expect(renewedToken(second)).toBe(renewedToken(first));
    // Same id and expiry, more proofs: its renewal must carry them, not the other copy's.
    core.clock.advance(1000);
    const stepped = core.issuer.stepUp(session, alice(), ['password'], { ip });
    const third = await core.authorize.execute({ forwarded, sessionToken: stepped.token, ip });
    expect(third.ok && third.value.renewed?.session.proven).toEqual(stepped.session.proven);
  });

  it('never renews without SESSION_MAX_LIFETIME', async () => {
    const core = makeCore([alice()], { settings: { sessionLifetimeMs: 60 * MINUTE } });
    const { token } = await signIn(core, 'alice', 'pw');
    core.clock.advance(59 * MINUTE);
    const result = await core.authorize.execute({ forwarded, sessionToken: token, ip });
    expect(result.ok && result.value.renewed).toBeUndefined();
  });

  it('the current-user answer renews too', async () => {
    const core = makeCore([alice()], { settings });
    const { token, session } = await signIn(core, 'alice', 'pw');
    core.clock.advance(45 * MINUTE);
    const user = await core.getCurrentUser.execute({ sessionToken: token, ip });
    expect(user.state === 'logged_in' && user.renewed?.session).toMatchObject({ id: session.id, expiresAt: core.clock.now() + 60 * MINUTE });
  });
});

describe('remember me', () => {
  it('a remembered login lives REMEMBER_ME_EXPIRY, any other SESSION_EXPIRY', async () => {
    const core = makeCore([alice()], { settings: { sessionLifetimeMs: 60 * MINUTE, rememberMeLifetimeMs: 600 * MINUTE } });
    const remembered = await core.login.execute({ login: 'alice', password: 'pw', ip, remember: true });
    const plain = await core.login.execute({ login: 'alice', password: 'pw', ip });
    if (!remembered.ok || !plain.ok) throw new Error('login failed');
    expect(remembered.value.session.expiresAt - remembered.value.session.issuedAt).toBe(600 * MINUTE);
    expect(plain.value.session.expiresAt - plain.value.session.issuedAt).toBe(60 * MINUTE);
    expect(core.sealer.unseal(remembered.value.token)?.remember).toBe(true);
  });

  it('is ignored while REMEMBER_ME_EXPIRY is off', async () => {
    const core = makeCore([alice()], { settings: { sessionLifetimeMs: 60 * MINUTE } });
    const result = await core.login.execute({ login: 'alice', password: 'pw', ip, remember: true });
    expect(result.ok && result.value.session.expiresAt - result.value.session.issuedAt).toBe(60 * MINUTE);
    expect(result.ok && result.value.session.remember).toBeUndefined();
  });

  it('survives the TOTP step of a login that asked for it', async () => {
    const core = makeCore([aUser().named('carol').withPassword('pw').withTotp().build()], {
      settings: { sessionLifetimeMs: 60 * MINUTE, rememberMeLifetimeMs: 600 * MINUTE },
    });
    const pending = await core.login.execute({ login: 'carol', password: 'pw', ip, remember: true });
    if (!pending.ok) throw new Error('login failed');
    expect(pending.value.session.totpPending).toBe(true);
    const full = await core.verifyTotp.execute({
      sessionToken: pending.value.token,
      code: FakeTotpVerifier.codeAt('JBSWY3DPEHPK3PXPJBSWY3DP', core.clock.now()),
      ip,
    });
    expect(full.ok && full.value.session.expiresAt - full.value.session.issuedAt).toBe(600 * MINUTE);
  });
});
