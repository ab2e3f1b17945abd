import type { LoginAttempts } from '../../../../src/application/password/login-attempts';
import { StateStoreUnavailableError } from '../../../../src/application/ports/state-store-unavailable';
import { aUser } from '../../../support/builders';
import { makeCore } from '../../../support/core';
import { FakeOAuthProvider, FakeTotpVerifier } from '../../../support/fakes';

/** Login attempts whose backing store is down, as the Redis adapter reports it. */
function downAttempts(): LoginAttempts {
  const fail = async (): Promise<never> => Promise.reject(new StateStoreUnavailableError('fake'));
  return { lockedUntil: fail, reserve: fail, refund: fail, reset: fail };
}

describe('use cases when the shared state store is down', () => {
  const ip = '198.51.100.7';

  it('fails a password login closed as unavailable, never as a wrong password or a success', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()], { attempts: downAttempts() });
    expect(await core.login.execute({ login: 'alice', password: 'pw', ip })).toEqual({ ok: false, error: { code: 'store_unavailable' } });
    expect(await core.login.execute({ login: 'alice', password: 'bad', ip })).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });

  it('fails a TOTP step closed as unavailable when the used-step record cannot be reached', async () => {
    const core = makeCore([aUser().named('tom').withPassword('pw').withTotp().build()]);
    const pending = await core.login.execute({ login: 'tom', password: 'pw', ip });
    if (!pending.ok) throw new Error('password step failed');
    core.usedSteps.claim = async () => Promise.reject(new StateStoreUnavailableError('fake'));
    const result = await core.verifyTotp.execute({
      sessionToken: core.sealer.seal(pending.value.session),
      code: FakeTotpVerifier.codeAt('JBSWY3DPEHPK3PXPJBSWY3DP', core.clock.now()),
      ip,
    });
    expect(result).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });

  it('answers forward auth with HTTP Basic as unavailable rather than anonymous', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()], { attempts: downAttempts() });
    const result = await core.authorize.execute({
      forwarded: { proxy: 'traefik', proto: 'https', host: 'app.example.com', uri: '/' },
      credentials: { kind: 'basic', username: 'alice', password: 'pw' },
      ip,
    });
    expect(result).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });

  it('keeps a session cookie working, since checking it needs no lock state', async () => {
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const login = await core.login.execute({ login: 'alice', password: 'pw', ip });
    if (!login.ok) throw new Error('login failed');
    const downCore = makeCore([aUser().named('alice').withPassword('pw').build()], { attempts: downAttempts() });
    const result = await downCore.authorize.execute({
      forwarded: { proxy: 'traefik', proto: 'https', host: 'app.example.com', uri: '/' },
      sessionToken: downCore.sealer.seal(login.value.session),
      ip,
    });
    expect(result.ok && result.value.identity?.username).toBe('alice');
  });
});

describe('an OAuth callback when the shared record of used flows is down', () => {
  it('fails closed as unavailable and leaves the flow unspent for a retry', async () => {
    const core = makeCore([], { providers: [new FakeOAuthProvider('generic')] });
    const started = await core.startOAuth.execute({ provider: 'generic', heldFlows: [] });
    if (!started.ok) throw new Error(started.error.code);
    const state = new URL(started.value.url).searchParams.get('state') ?? '';
    const callback = { provider: 'generic', code: 'c', state, heldFlows: [{ id: started.value.flow.id, token: started.value.flow.token }], ip: '198.51.100.7' };
    const use = core.usedFlows.use.bind(core.usedFlows);
    core.usedFlows.use = async () => Promise.reject(new StateStoreUnavailableError('fake'));
    expect(await core.completeOAuth.execute(callback)).toEqual({ ok: false, error: { code: 'store_unavailable' } });
    core.usedFlows.use = use;
    expect(await core.usedFlows.use(started.value.flow.id, core.clock.now() + 60_000)).toBe(true);
  });
});

describe('a logout when the revocation cannot be written', () => {
  it('fails closed as unavailable and records no logout', async () => {
    const ip = '198.51.100.7';
    const core = makeCore([aUser().named('alice').withPassword('pw').build()]);
    const login = await core.login.execute({ login: 'alice', password: 'pw', ip });
    if (!login.ok) throw new Error('login failed');
    const sessionToken = core.sealer.seal(login.value.session);
    core.revoked.revoke = async () => Promise.reject(new StateStoreUnavailableError('fake'));
    expect(await core.logout.execute({ sessionToken, fromThisSite: true })).toEqual({ ok: false, error: { code: 'store_unavailable' } });
    expect(core.audit.events.filter((e) => e.event === 'logout')).toEqual([]);
  });
});
