import { NO_APP_GRANTS } from '../../../../src/adapters/oidc/account-app-grants';
import { RevokeAccountSessionsUseCase } from '../../../../src/application/account/revoke-account-sessions';
import { StateStoreUnavailableError } from '../../../../src/application/ports/state-store-unavailable';
import type { SessionIndex, SessionSighting } from '../../../../src/application/ports/session-index';
import { LastSeenRecorder, LAST_SEEN_RESOLUTION_MS } from '../../../../src/application/sessions/last-seen-recorder';
import { InMemorySessionIndex } from '../../../../src/adapters/state/memory/in-memory-session-index';
import { aUser } from '../../../support/builders';
import { makeCore, signIn } from '../../../support/core';
import { FixedClock } from '../../../support/fakes';

const ip = '198.51.100.7';
const forwarded = { proxy: 'traefik', proto: 'https', host: 'app.example.com', uri: '/' } as const;
const alice = () => aUser().named('alice').withPassword('pw').build();

describe('the session index at login', () => {
  it('indexes a password login with its device, and not a session that still owes a TOTP code', async () => {
    const core = makeCore([alice(), aUser().named('carol').withPassword('pw').withTotp().build()]);
    const result = await core.login.execute({ login: 'alice', password: 'pw', ip, userAgent: 'x'.repeat(2000) });
    if (!result.ok) throw new Error(result.error.code);
    const [entry] = await core.index.list('alice');
    expect(entry).toMatchObject({ id: result.value.session.id, method: 'password', address: ip, expiresAt: result.value.session.expiresAt });
    expect(entry.userAgent).toHaveLength(512);
    await signIn(core, 'carol', 'pw');
    expect(await core.index.list('carol')).toEqual([]);
  });

  it('fails a login closed (store_unavailable, no session) when the index cannot record it', async () => {
    const core = makeCore([alice()]);
    jest.spyOn(core.index, 'register').mockRejectedValue(new StateStoreUnavailableError('redis'));
    expect(await core.login.execute({ login: 'alice', password: 'pw', ip })).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });
});

describe('RevokeAccountSessionsUseCase', () => {
  it('ends every session of the account, current last, and audits how many', async () => {
    const core = makeCore([alice()]);
    const laptop = await signIn(core, 'alice', 'pw');
    const phone = await signIn(core, 'alice', 'pw');
    const result = await core.revokeAccountSessions.execute({ sessionToken: phone.token, fromThisSite: true, target: { scope: 'all' }, ip });
    expect(result).toEqual({ ok: true, value: { revoked: 2, endedCurrent: true } });
    for (const s of [laptop, phone]) expect(await core.authorize.execute({ forwarded, sessionToken: s.token, ip })).toMatchObject({ ok: false });
    expect(core.audit.events).toContainEqual({ event: 'sessions_revoked', username: 'alice', scope: 'all', count: 2, by: 'account' });
  });

  it('ends the grants apps hold for the person with "everywhere" and "everywhere else", not with one session, and fails closed when it cannot', async () => {
    const core = makeCore([alice()]);
    const ended: string[] = [];
    const grants = { ...NO_APP_GRANTS, endAll: async (identity: { username: string }) => void ended.push(identity.username) };
    const revoke = new RevokeAccountSessionsUseCase(core.authenticator, core.index, core.revoked, core.audit, grants);
    const first = await signIn(core, 'alice', 'pw');
    await revoke.execute({ sessionToken: first.token, fromThisSite: true, target: { scope: 'one', id: first.session.id }, ip });
    expect(ended).toEqual([]);
    const second = await signIn(core, 'alice', 'pw');
    await revoke.execute({ sessionToken: second.token, fromThisSite: true, target: { scope: 'others' }, ip });
    await revoke.execute({ sessionToken: second.token, fromThisSite: true, target: { scope: 'all' }, ip });
    expect(ended).toEqual(['alice', 'alice']);

    const third = await signIn(core, 'alice', 'pw');
    const down = new RevokeAccountSessionsUseCase(core.authenticator, core.index, core.revoked, core.audit, {
      ...NO_APP_GRANTS,
      endAll: () => Promise.reject(new StateStoreUnavailableError('sqlite')),
    });
    expect(await down.execute({ sessionToken: third.token, fromThisSite: true, target: { scope: 'all' }, ip })).toEqual({
      ok: false,
      error: { code: 'store_unavailable' },
    });
    expect(await core.authorize.execute({ forwarded, sessionToken: third.token, ip })).toMatchObject({ ok: true });
  });

  it('answers store_unavailable when a revocation cannot be stored', async () => {
    const core = makeCore([alice()]);
    const { token } = await signIn(core, 'alice', 'pw');
    jest.spyOn(core.revoked, 'revoke').mockRejectedValue(new StateStoreUnavailableError('sqlite'));
    expect(await core.revokeAccountSessions.execute({ sessionToken: token, fromThisSite: true, target: { scope: 'all' }, ip })).toEqual({
      ok: false,
      error: { code: 'store_unavailable' },
    });
  });
});

describe('LastSeenRecorder', () => {
  class CountingIndex extends InMemorySessionIndex {
    batches: SessionSighting[][] = [];
    override async touch(sightings: readonly SessionSighting[]): Promise<void> {
      this.batches.push([...sightings]);
      await super.touch(sightings);
    }
  }

  it('notes a session at most once a minute, and writes nothing until flushed', async () => {
    const clock = new FixedClock();
    const index = new CountingIndex(clock);
    const recorder = new LastSeenRecorder(index, clock);
    for (let i = 0; i < 1000; i += 1) recorder.seen('s1');
    expect(index.batches).toEqual([]);
    await recorder.flush();
    clock.advance(LAST_SEEN_RESOLUTION_MS - 1);
    recorder.seen('s1');
    await recorder.flush();
    clock.advance(1);
    recorder.seen('s1');
    await recorder.flush();
    expect(index.batches.map((b) => b.length)).toEqual([1, 1]);
  });

  it('writes many sessions in one batch', async () => {
    const clock = new FixedClock();
    const index = new CountingIndex(clock);
    const recorder = new LastSeenRecorder(index, clock);
    for (let i = 0; i < 300; i += 1) recorder.seen(`s${i}`);
    await recorder.flush();
    expect(index.batches.map((b) => b.length)).toEqual([300]);
  });

  it('stays bounded and drops sightings (never throws) when the store is down', async () => {
    const clock = new FixedClock();
    const failing: SessionIndex = {
      register: async () => undefined,
      list: async () => [],
      accounts: async () => [],
      touch: async () => Promise.reject(new StateStoreUnavailableError('redis')),
      lastSeen: async () => Promise.reject(new StateStoreUnavailableError('redis')),
    };
    const recorder = new LastSeenRecorder(failing, clock, 10);
    for (let i = 0; i < 100; i += 1) recorder.seen(`s${i}`);
    expect(recorder.waiting).toBe(10);
    await expect(recorder.flush()).resolves.toBeUndefined();
    expect(recorder.waiting).toBe(0);
  });

  it('is told of every full session forward auth passes, and the next flush updates last seen', async () => {
    const core = makeCore([alice()]);
    const { token, session } = await signIn(core, 'alice', 'pw');
    core.clock.advance(5 * LAST_SEEN_RESOLUTION_MS);
    expect((await core.authorize.execute({ forwarded, sessionToken: token, ip })).ok).toBe(true);
    expect((await core.index.list('alice'))[0].lastSeenAt).toBe(session.issuedAt);
    await core.lastSeen.flush();
    expect((await core.index.list('alice'))[0].lastSeenAt).toBe(core.clock.now());
  });
});

describe('the account a session belongs to', () => {
  it('keeps a local account apart from OAuth sessions of the same name: it neither lists nor ends them', async () => {
    const core = makeCore([aUser().named('olivia@example.com').withPassword('pw').build()]);
    const { token } = await signIn(core, 'olivia@example.com', 'pw');
    const at = core.clock.now();
    const oauth = {
      id: 'oauth-session',
      username: 'olivia@example.com',
      method: 'generic',
      userAgent: '',
      address: ip,
      startedAt: at,
      expiresAt: at + 60_000,
      lastSeenAt: at,
    };
    await core.index.register(oauth);
    const listed = await core.listAccountSessions.execute({ sessionToken: token, ip });
    expect(listed.ok && listed.value.sessions.map((s) => s.id)).not.toContain('oauth-session');
    expect(await core.revokeAccountSessions.execute({ sessionToken: token, fromThisSite: true, target: { scope: 'one', id: 'oauth-session' }, ip })).toEqual({
      ok: false,
      error: { code: 'session_not_found' },
    });
    await core.revokeAccountSessions.execute({ sessionToken: token, fromThisSite: true, target: { scope: 'all' }, ip });
    expect(await core.revoked.isRevoked('oauth-session')).toBe(false);
  });
});
