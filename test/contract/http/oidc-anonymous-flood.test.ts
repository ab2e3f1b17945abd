import { InMemoryOidcArtifacts } from '../../../src/adapters/state/memory/in-memory-oidc-artifacts';
import { SystemClock } from '../../../src/adapters/system/system-clock';
import type { OidcArtifact, OidcArtifacts } from '../../../src/application/oidc/oidc-artifacts';
import { TOKENS } from '../../../src/composition/tokens';
import * as client from 'openid-client';
import { SESSION_COOKIE } from '../../support/http';
import { Browser, CALLBACK, loggedInBrowser, OIDC_PEOPLE, pkceAuthorization, useOidcGateway } from '../../support/oidc-gateway';

/** The provider's store, counting what is saved in it (bytes of JSON per kind). */
function countingStore(): { store: OidcArtifacts; saved: Map<string, number>; bytes(): number } {
  const inner = new InMemoryOidcArtifacts(new SystemClock());
  const saved = new Map<string, number>();
  const store: OidcArtifacts = Object.assign(Object.create(inner) as OidcArtifacts, {
    save(kind: string, id: string, payload: OidcArtifact, expiresInSeconds: number | undefined) {
      saved.set(kind, (saved.get(kind) ?? 0) + JSON.stringify(payload).length);
      return inner.save(kind, id, payload, expiresInSeconds);
    },
  });
  return { store, saved, bytes: () => [...saved.values()].reduce((a, b) => a + b, 0) };
}

/**
 * An authorization request costs the provider's store an interaction (about 1 KB plus its
 * parameters, kept 10 minutes). Without a gateway session nobody is accountable for it: such a
 * request stores nothing, whatever its parameters, so a flood of them cannot grow the store.
 */
describe('OpenID Connect authorization requests without a login store nothing', () => {
  const counting = countingStore();
  const oidc = useOidcGateway({}, { overrides: { [TOKENS.OidcArtifacts]: counting.store } });
  const big = 'x'.repeat(3000);

  it('a flood of 400 anonymous authorization requests (GET and POST, every prompt, long parameters) grows the store by 0 bytes', async () => {
    const variants: Record<string, string>[] = [
      { state: big },
      { prompt: 'login', nonce: big },
      { max_age: '0', login_hint: big },
      { prompt: 'none' },
      { scope: 'openid email profile groups' },
      { client_id: 'nobody', state: big },
      { redirect_uri: 'https://evil.example.test/cb', state: big },
    ];
    const requests: Promise<Response>[] = [];
    for (let i = 0; i < 400; i += 1) {
      const { url } = await pkceAuthorization(oidc.app, CALLBACK, variants[i % variants.length]);
      if (i % 4 === 3) {
        const body = url.search.slice(1);
        requests.push(
          fetch(`${url.origin}${url.pathname}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body }),
        );
      } else requests.push(fetch(url, { redirect: 'manual', headers: i % 3 === 0 ? { cookie: `${SESSION_COOKIE}=forged-${i}` } : {} }));
      if (requests.length === 40) for (const res of await Promise.all(requests.splice(0))) expect(res.status).toBeLessThan(500);
    }
    await Promise.all(requests);
    expect(Object.fromEntries(counting.saved)).toEqual({});
    expect(counting.bytes()).toBe(0);
  });

  it.each<Record<string, string>>([{}, { prompt: 'login' }, { max_age: '0' }])(
    'sends an anonymous browser to the login page, and after its login to the client with a code (%o)',
    async (params: Record<string, string>) => {
      const browser = new Browser(oidc.gw.url);
      const { url, verifier, state } = await pkceAuthorization(oidc.app, CALLBACK, params);
      const first = await browser.follow(url.toString());
      expect(first.url.pathname).toBe('/login');
      const loginAt = Math.floor(Date.now() / 1000);
      await browser.login('alice', OIDC_PEOPLE.alice.password);
      const done = await browser.follow(first.url.searchParams.get('redirect_uri') as string);
      expect(done.url.toString().startsWith(`${CALLBACK}?`)).toBe(true);
      const tokens = await client.authorizationCodeGrant(oidc.app, done.url, { pkceCodeVerifier: verifier, expectedState: state });
      expect(tokens.claims()).toMatchObject({ preferred_username: 'alice', auth_time: expect.any(Number) });
      expect(tokens.claims()?.auth_time).toBeGreaterThanOrEqual(loginAt);
    },
  );

  it('serves a POSTed authorization request of a logged-in browser as the same GET', async () => {
    const browser = await loggedInBrowser(oidc.gw.url);
    const { url } = await pkceAuthorization(oidc.app, CALLBACK);
    const posted = await browser.fetch(`${url.origin}${url.pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: url.search.slice(1),
    });
    expect(posted.status).toBe(303);
    const done = await browser.follow(new URL(posted.headers.get('location') as string, oidc.gw.url).toString());
    expect(done.url.searchParams.get('code')).toEqual(expect.any(String));
  });

  it('refuses an authorization request longer than 4096 characters with a page, and stores nothing for it', async () => {
    const browser = await loggedInBrowser(oidc.gw.url);
    const before = counting.saved.get('Interaction') ?? 0;
    const { url } = await pkceAuthorization(oidc.app, CALLBACK, { state: 'y'.repeat(5000) });
    const res = await browser.fetch(url.toString());
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('too long');
    expect(counting.saved.get('Interaction') ?? 0).toBe(before);
  });
});
