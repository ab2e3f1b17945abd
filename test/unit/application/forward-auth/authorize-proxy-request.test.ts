import type { LoginTargetMemo } from '../../../../src/adapters/http/login-target-memo';
import type { BoundedMemo } from '../../../../src/adapters/state/bounded-map';
import type { ForwardedHeaders } from '../../../../src/domain/forwarded-request';
import { safeRedirectTarget } from '../../../../src/domain/redirect-target';
import { aUser, basicAuth } from '../../../support/builders';
import { makeCore, signIn } from '../../../support/core';
import { ScriptedAccessPolicy } from '../../../support/fakes';

describe('AuthorizeProxyRequestUseCase', () => {
  const ip = '198.51.100.7';
  const app: ForwardedHeaders = { proxy: 'traefik', proto: 'https', host: 'app.example.com', uri: '/dashboard?tab=1' };
  const accounts = () => [aUser().named('alice').withPassword('pw').withGroups('admins').build(), aUser().named('tom').withPassword('pw').withTotp().build()];

  it('lets a live session through with its identity', async () => {
    const core = makeCore(accounts());
    const { token } = await signIn(core, 'alice', 'pw');
    const result = await core.authorize.execute({ forwarded: app, sessionToken: token, ip });
    expect(result).toEqual({ ok: true, value: { identity: expect.objectContaining({ username: 'alice', groups: ['admins'] }), headers: {} } });
  });

  it('lets valid HTTP Basic credentials through', async () => {
    const core = makeCore(accounts());
    const result = await core.authorize.execute({ forwarded: app, credentials: basicAuth('alice', 'pw'), ip });
    expect(result).toMatchObject({ ok: true, value: { identity: { username: 'alice', provider: 'basic' } } });
  });

  it('sends an anonymous caller to log in, returning to the original URL on the protected domain', async () => {
    const core = makeCore(accounts());
    expect(await core.authorize.execute({ forwarded: app, ip })).toEqual({
      ok: false,
      error: { code: 'unauthenticated', returnTo: 'https://app.example.com/dashboard?tab=1' },
    });
  });

  it('builds the return URL from X-Original-URL too', async () => {
    const core = makeCore(accounts());
    expect(await core.authorize.execute({ forwarded: { proxy: 'nginx', originalUrl: 'http://App.Example.com:8080/x' }, ip })).toEqual({
      ok: false,
      error: { code: 'unauthenticated', returnTo: 'http://app.example.com:8080/x' },
    });
  });

  it('never offers a return URL off the protected domain', async () => {
    const core = makeCore(accounts());
    for (const host of ['evilexample.com', 'example.com.evil.test', 'evil.test', '203.0.113.5', '[::1]']) {
      expect(await core.authorize.execute({ forwarded: { proxy: 'caddy', proto: 'https', host, uri: '/' }, ip })).toEqual({
        ok: false,
        error: { code: 'unauthenticated', returnTo: null },
      });
    }
  });

  it('asks for a login without a return URL when the proxy sent no forwarded headers', async () => {
    const core = makeCore(accounts());
    expect(await core.authorize.execute({ forwarded: { proxy: 'traefik' }, ip })).toEqual({ ok: false, error: { code: 'unauthenticated', returnTo: null } });
  });

  it('refuses malformed forwarded headers before looking at any credentials', async () => {
    const core = makeCore(accounts());
    const cases: Array<[ForwardedHeaders, string, string]> = [
      [{ proxy: 'traefik', proto: 'ftp', host: 'app.example.com', uri: '/' }, 'X-Forwarded-Proto', 'malformed'],
      [{ proxy: 'traefik', proto: 'https', host: 'evil.test/x', uri: '/' }, 'X-Forwarded-Host', 'malformed'],
      [{ proxy: 'caddy', proto: 'https', host: 'app.example.com', uri: '//evil.test' }, 'X-Forwarded-Uri', 'malformed'],
      [{ proxy: 'caddy', proto: 'https', uri: '/' }, 'X-Forwarded-Host', 'malformed'],
      [{ proxy: 'nginx', originalUrl: 'javascript:alert(1)' }, 'X-Original-URL', 'malformed'],
      [{ proxy: 'nginx', host: 'app.example.com' }, 'X-Original-URL', 'missing'],
      [{ proxy: 'traefik', proto: 'https', host: 'evil.test, app.example.com', uri: '/' }, 'X-Forwarded-Host', 'repeated'],
    ];
    for (const [forwarded, field, problem] of cases) {
      expect(await core.authorize.execute({ forwarded, credentials: basicAuth('alice', 'pw'), ip, requestId: 'r1' })).toEqual({
        ok: false,
        error: { code: 'bad_forwarded_headers', field, problem },
      });
      expect(core.audit.events.at(-1)).toEqual({ event: 'forwarded_request_refused', proxy: forwarded.proxy, field, problem, ip, requestId: 'r1' });
    }
    expect(core.hasher.verifications).toBe(0);
  });

  it('does not let a pending TOTP session through', async () => {
    const core = makeCore(accounts());
    const { token } = await signIn(core, 'tom', 'pw');
    expect(await core.authorize.execute({ forwarded: app, sessionToken: token, ip })).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
  });

  it('does not let Basic credentials of a TOTP account through', async () => {
    const core = makeCore(accounts());
    expect(await core.authorize.execute({ forwarded: app, credentials: basicAuth('tom', 'pw'), ip })).toMatchObject({
      ok: false,
      error: { code: 'unauthenticated' },
    });
  });

  it('reports a locked account as locked, with the seconds to wait', async () => {
    const core = makeCore(accounts());
    for (let i = 0; i < 3; i += 1) await core.login.execute({ login: 'alice', password: 'bad', ip });
    expect(await core.authorize.execute({ forwarded: app, credentials: basicAuth('alice', 'pw'), ip })).toEqual({
      ok: false,
      error: { code: 'account_locked', retryAfter: 60 },
    });
  });

  it('reports an unreachable user store for Basic credentials as unavailable', async () => {
    const core = makeCore(accounts());
    core.users.down = true;
    expect(await core.authorize.execute({ forwarded: app, credentials: basicAuth('alice', 'pw'), ip })).toEqual({
      ok: false,
      error: { code: 'store_unavailable' },
    });
  });

  it('refuses a logged-in person the policy denies, and records it', async () => {
    const policy = new ScriptedAccessPolicy({ kind: 'deny', reason: 'not in group admins', app: 'grafana' });
    const core = makeCore(accounts(), { policy });
    const { token } = await signIn(core, 'alice', 'pw');
    expect(await core.authorize.execute({ forwarded: app, sessionToken: token, ip })).toEqual({
      ok: false,
      error: { code: 'forbidden', reason: 'not in group admins', app: 'grafana', username: 'alice', network: false },
    });
    expect(core.audit.events).toContainEqual({ event: 'access_denied', username: 'alice', host: 'app.example.com', reason: 'not in group admins' });
  });

  it('reports a denial without an application name with app null', async () => {
    const core = makeCore(accounts(), { policy: new ScriptedAccessPolicy({ kind: 'deny', reason: 'blocked' }) });
    expect(await core.authorize.execute({ forwarded: app, ip })).toEqual({
      ok: false,
      error: { code: 'forbidden', reason: 'blocked', app: null, username: '', network: false },
    });
  });

  it('passes the headers an allowing policy adds, and lets it allow anonymous public paths', async () => {
    const core = makeCore(accounts(), { policy: new ScriptedAccessPolicy({ kind: 'allow', headers: { 'X-App-Role': 'viewer' } }) });
    expect(await core.authorize.execute({ forwarded: app, ip })).toEqual({ ok: true, value: { identity: null, headers: { 'X-App-Role': 'viewer' } } });
  });

  it('shows the policy the original request, the identity and the client address', async () => {
    const policy = new ScriptedAccessPolicy({ kind: 'allow' });
    const core = makeCore(accounts(), { policy });
    const { token } = await signIn(core, 'alice', 'pw');
    await core.authorize.execute({ forwarded: app, sessionToken: token, ip: '2001:db8::7' });
    expect(policy.requests).toEqual([
      {
        original: expect.objectContaining({ hostname: 'app.example.com', uri: '/dashboard?tab=1', url: 'https://app.example.com/dashboard?tab=1' }),
        identity: expect.objectContaining({ username: 'alice' }),
        ip: '2001:db8::7',
      },
    ]);
  });

  it('offers only the gateway host as a return URL when the cookie is host-only', async () => {
    const core = makeCore(accounts(), { settings: { protectedDomain: { domain: 'localhost', shareable: false } } });
    expect(await core.authorize.execute({ forwarded: { proxy: 'traefik', proto: 'http', host: 'localhost:8080', uri: '/a' }, ip })).toEqual({
      ok: false,
      error: { code: 'unauthenticated', returnTo: 'http://localhost:8080/a' },
    });
    expect(await core.authorize.execute({ forwarded: { proxy: 'traefik', proto: 'http', host: 'app.localhost', uri: '/a' }, ip })).toEqual({
      ok: false,
      error: { code: 'unauthenticated', returnTo: null },
    });
  });

  describe('the memo of return targets (LoginTargetMemo, as the gateway wires it)', () => {
    const refusedTo = async (core: ReturnType<typeof makeCore>, forwarded: ForwardedHeaders) => {
      const result = await core.authorize.execute({ forwarded, ip });
      if (result.ok || result.error.code !== 'unauthenticated') throw new Error('expected a login refusal');
      return result.error.returnTo;
    };
    const memoOf = (core: ReturnType<typeof makeCore>): BoundedMemo<string, unknown> => (core.authorize['loginTargets'] as LoginTargetMemo)['memo'];

    it('answers what the vetting answers, the first time and every time after, for kept and refused targets alike', async () => {
      const core = makeCore(accounts());
      const domain = { domain: 'example.com', shareable: true };
      const cases: ForwardedHeaders[] = [
        app,
        { proxy: 'nginx', originalUrl: 'https://app.example.com/a/../b?x=<y>' },
        { proxy: 'caddy', proto: 'https', host: 'evil.test', uri: '/' },
        { proxy: 'traefik', proto: 'https', host: 'app.example.com:443', uri: '/%2e%2e/q' },
      ];
      for (const forwarded of cases) {
        const first = await refusedTo(core, forwarded);
        const again = await refusedTo(core, forwarded);
        const url = forwarded.originalUrl ?? `${forwarded.proto}://${forwarded.host}${forwarded.uri}`;
        expect(first).toBe(safeRedirectTarget(url, domain));
        expect(again).toBe(first);
      }
      expect(await refusedTo(core, { proxy: 'caddy', proto: 'https', host: 'evil.test', uri: '/' })).toBeNull();
    });

    it('stays bounded under a flood of distinct paths and still answers right afterwards', async () => {
      const core = makeCore(accounts());
      for (let i = 0; i < 1000; i += 1) await refusedTo(core, { ...app, uri: `/page/${i}` });
      expect(memoOf(core).size).toBeLessThanOrEqual(256);
      expect(await refusedTo(core, { ...app, uri: '/page/3' })).toBe('https://app.example.com/page/3');
    });

    it('does not keep very long URLs', async () => {
      const core = makeCore(accounts());
      const uri = `/${'a'.repeat(2000)}`;
      expect(await refusedTo(core, { ...app, uri })).toBe(`https://app.example.com${uri}`);
      expect(memoOf(core).get(`https://app.example.com${uri}`)).toBeUndefined();
      expect(memoOf(core).size).toBe(0);
    });
  });
});
