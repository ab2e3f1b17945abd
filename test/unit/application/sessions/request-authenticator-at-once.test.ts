import { isPending } from '../../../../src/application/ports/awaitable';
import type { Authentication, RequestCredentials } from '../../../../src/application/sessions/request-authenticator';
import { aUser } from '../../../support/builders';
import { makeCore, signIn, type Core } from '../../../support/core';

// Forward auth answers without a promise when every store answers from memory (ADR 0023). These
// check that the answers given at once are the same as the awaited ones: a logout, a lock, a
// changed password and an outage count at the very next request.

const IP = '198.51.100.7';
const basic = (password: string) => ({ kind: 'basic' as const, username: 'alice', password });

function atOnce(core: Core, credentials: RequestCredentials): Authentication {
  const answer = core.authenticator.authenticate(credentials);
  if (isPending(answer)) throw new Error('expected an answer at once, got a promise');
  return answer;
}

function coreAtOnce(): Core {
  return makeCore([aUser().named('alice').withPassword('pw').build()], { usersAtOnce: true });
}

describe('RequestAuthenticator answering at once (every store in memory)', () => {
  it('answers a live session cookie without a promise', async () => {
    const core = coreAtOnce();
    const { token } = await signIn(core, 'alice', 'pw');
    const answer = atOnce(core, { sessionToken: token, ip: IP });
    expect(answer.kind === 'session' && answer.identity.username).toBe('alice');
  });

  it('refuses a session at the very next request after its logout', async () => {
    const core = coreAtOnce();
    const { token } = await signIn(core, 'alice', 'pw');
    expect(atOnce(core, { sessionToken: token, ip: IP }).kind).toBe('session');
    expect(await core.logout.execute({ sessionToken: token, fromThisSite: true })).toEqual({
      ok: true,
      value: { revoked: true, sessionId: expect.any(String) },
    });
    expect(atOnce(core, { sessionToken: token, ip: IP }).kind).toBe('anonymous');
  });

  it('ends a session at the very next request after its password changed', async () => {
    const core = coreAtOnce();
    const { token } = await signIn(core, 'alice', 'pw');
    core.users.replace([aUser().named('alice').withPassword('new-pw').build()]);
    expect(atOnce(core, { sessionToken: token, ip: IP }).kind).toBe('anonymous');
  });

  it('keeps a session when its store is down, as the awaited path does (the login proved it)', async () => {
    const core = coreAtOnce();
    const { token } = await signIn(core, 'alice', 'pw');
    core.users.down = true;
    expect(atOnce(core, { sessionToken: token, ip: IP }).kind).toBe('session');
  });

  it('answers a cached Basic header without a promise once its password was checked', async () => {
    const core = coreAtOnce();
    const first = core.authenticator.authenticate({ credentials: basic('pw'), ip: IP });
    expect(isPending(first)).toBe(true);
    expect((await first).kind).toBe('basic');
    const cached = atOnce(core, { credentials: basic('pw'), ip: IP });
    expect(cached.kind === 'basic' && cached.identity.username).toBe('alice');
    expect(core.hasher.verifications).toBe(1);
  });

  it('refuses a cached Basic header at once when the account was locked since', async () => {
    const core = coreAtOnce();
    expect((await core.authenticator.authenticate({ credentials: basic('pw'), ip: IP })).kind).toBe('basic');
    // Three wrong passwords through the login form lock the account (lockPolicy(3, 60) in makeCore).
    for (let i = 0; i < 3; i += 1) await core.login.execute({ login: 'alice', password: 'wrong', ip: '203.0.113.9' });
    const answer = await core.authenticator.authenticate({ credentials: basic('pw'), ip: IP });
    expect(answer.kind).toBe('locked');
  });

  it('does not let a cached Basic header through after a password change', async () => {
    const core = coreAtOnce();
    expect((await core.authenticator.authenticate({ credentials: basic('pw'), ip: IP })).kind).toBe('basic');
    core.users.replace([aUser().named('alice').withPassword('new-pw').build()]);
    expect((await core.authenticator.authenticate({ credentials: basic('pw'), ip: IP })).kind).toBe('anonymous');
  });

  it('answers a cached Basic header "unavailable" at once when the store is down, never anonymous', async () => {
    const core = coreAtOnce();
    expect((await core.authenticator.authenticate({ credentials: basic('pw'), ip: IP })).kind).toBe('basic');
    core.users.down = true;
    expect(atOnce(core, { credentials: basic('pw'), ip: IP }).kind).toBe('unavailable');
  });
});

describe('AuthorizeProxyRequestUseCase answering at once', () => {
  it('allows a live session without a promise and refuses it at once after logout', async () => {
    const core = coreAtOnce();
    const { token } = await signIn(core, 'alice', 'pw');
    const input = { sessionToken: token, ip: IP, forwarded: { proxy: 'traefik' as const, proto: 'https', host: 'app.example.com', uri: '/' } };
    const allowed = core.authorize.execute(input);
    expect(isPending(allowed)).toBe(false);
    expect(!isPending(allowed) && allowed.ok).toBe(true);
    await core.logout.execute({ sessionToken: token, fromThisSite: true });
    const refused = core.authorize.execute(input);
    expect(!isPending(refused) && !refused.ok && refused.error.code).toBe('unauthenticated');
  });
});
