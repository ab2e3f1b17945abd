import * as client from 'openid-client';
import { SESSION_COOKIE, totpCode } from '../../support/http';
import { authorize, CALLBACK, Browser, codeFlow, loggedInBrowser, OIDC_PEOPLE, pkceAuthorization, useOidcGateway } from '../../support/oidc-gateway';
import { InMemoryOidcArtifacts } from '../../../src/adapters/state/memory/in-memory-oidc-artifacts';
import { SystemClock } from '../../../src/adapters/system/system-clock';
import type { OidcArtifact, OidcArtifacts } from '../../../src/application/oidc/oidc-artifacts';
import { StateStoreUnavailableError } from '../../../src/application/ports/state-store-unavailable';
import { TOKENS } from '../../../src/composition/tokens';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/**
 * `prompt=login` and `max_age` are a relying party asking for proof that the person is there now:
 * an older gateway session must not answer them. The person logs in again (every step, TOTP
 * included) and `auth_time` is that new login's.
 */
describe('OpenID Connect re-authentication: prompt=login and max_age', () => {
  const oidc = useOidcGateway();

  /** The code flow once the browser is back at the client: the ID token's claims. */
  async function redeem(callback: URL, verifier: string, state: string, maxAge?: number) {
    const tokens = await client.authorizationCodeGrant(oidc.app, callback, { pkceCodeVerifier: verifier, expectedState: state, maxAge });
    return tokens.claims() as client.IDToken;
  }

  /** A whole single sign-on code flow for a logged-in browser: the ID token's auth_time. */
  async function ssoAuthTime(browser: Browser): Promise<number> {
    return (await codeFlow(browser, oidc.app)).claims()?.auth_time as number;
  }

  it('sends a person with a live gateway session to the login page on prompt=login, and auth_time is the new login', async () => {
    const browser = await loggedInBrowser(oidc.gw.url);
    const before = await ssoAuthTime(browser);
    await pause(1100);
    const { url, verifier, state } = await pkceAuthorization(oidc.app, CALLBACK, { prompt: 'login' });
    const first = await browser.follow(url.toString());
    expect(first.url.pathname).toBe('/login');
    expect(first.url.searchParams.get('code')).toBeNull();
    const loginAt = nowSeconds();
    await browser.login('alice', OIDC_PEOPLE.alice.password);
    const done = await browser.follow(first.url.searchParams.get('redirect_uri') as string);
    expect(done.url.toString().startsWith(`${CALLBACK}?`)).toBe(true);
    const claims = await redeem(done.url, verifier, state);
    expect(claims.preferred_username).toBe('alice');
    expect(claims.auth_time).toBeGreaterThan(before);
    expect(claims.auth_time).toBeGreaterThanOrEqual(loginAt);
  });

  it('does not accept the old session when the person comes back to the interaction without logging in again', async () => {
    const browser = await loggedInBrowser(oidc.gw.url);
    const { url } = await pkceAuthorization(oidc.app, CALLBACK, { prompt: 'login' });
    const first = await browser.follow(url.toString());
    expect(first.url.pathname).toBe('/login');
    const again = await browser.follow(first.url.searchParams.get('redirect_uri') as string);
    expect(again.url.pathname).toBe('/login');
    expect(again.url.searchParams.get('code')).toBeNull();
  });

  it('asks for the TOTP step again too: a re-login that still owes its code does not count', async () => {
    const browser = await loggedInBrowser(oidc.gw.url, 'carol');
    const { url, verifier, state } = await pkceAuthorization(oidc.app, CALLBACK, { prompt: 'login' });
    const first = await browser.follow(url.toString());
    expect(first.url.pathname).toBe('/login');
    const interaction = first.url.searchParams.get('redirect_uri') as string;
    expect((await browser.passwordStep('carol', OIDC_PEOPLE.carol.password)).status).toBe(200);
    expect((await browser.follow(interaction)).url.pathname).toBe('/login');
    // The next step's code: the first login spent this step's, and a code is never taken twice.
    expect((await browser.totpStep(await totpCode(undefined, nowSeconds() + 30))).status).toBe(200);
    const done = await browser.follow(interaction);
    expect((await redeem(done.url, verifier, state)).preferred_username).toBe('carol');
  });

  it('sends a person whose last proof is older than max_age to a step-up, not a new login, and auth_time then meets max_age', async () => {
    const browser = await loggedInBrowser(oidc.gw.url);
    const session = browser.get(SESSION_COOKIE);
    await pause(2100);
    const { url, verifier, state } = await pkceAuthorization(oidc.app, CALLBACK, { max_age: '1' });
    const first = await browser.follow(url.toString());
    expect(first.url.pathname).toBe('/login');
    expect(first.url.searchParams.get('redirect_uri')).toBeNull();
    const reference = first.url.searchParams.get('step_up') as string;
    // The login page's step-up asks what any proof would meet: alice holds a password only.
    const described = await browser.fetch(`${oidc.gw.url}/api/step-up?ref=${encodeURIComponent(reference)}`);
    expect(await described.json()).toMatchObject({ username: 'alice', methods: ['password'] });
    const proofAt = nowSeconds();
    const stepped = await browser.stepUp(reference, { method: 'password', password: OIDC_PEOPLE.alice.password });
    expect(stepped.status).toBe(200);
    // The same session, proven again (no second login happened).
    expect(browser.get(SESSION_COOKIE)).not.toBe(session);
    const done = await browser.follow(stepped.redirect as string);
    // openid-client checks auth_time against max_age itself.
    const claims = await redeem(done.url, verifier, state, 1);
    expect(claims.auth_time).toBeGreaterThanOrEqual(proofAt);
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.acr).toBe('sfa');
  });

  it('keeps single sign-on when the gateway login is recent enough for max_age', async () => {
    const browser = await loggedInBrowser(oidc.gw.url);
    const { callback, verifier, state } = await authorize(browser, oidc.app, CALLBACK, { max_age: '300' });
    expect((await redeem(callback, verifier, state, 300)).preferred_username).toBe('alice');
  });

  it('answers prompt=none with login_required when the gateway login is older than max_age', async () => {
    const browser = await loggedInBrowser(oidc.gw.url);
    await ssoAuthTime(browser);
    await pause(2100);
    const { url } = await pkceAuthorization(oidc.app, CALLBACK, { prompt: 'none', max_age: '1' });
    const done = await browser.follow(url.toString());
    expect(done.url.toString().startsWith(`${CALLBACK}?`)).toBe(true);
    expect(done.url.searchParams.get('error')).toBe('login_required');
  });

  describe('when the interaction cannot be saved', () => {
    const store = new InMemoryOidcArtifacts(new SystemClock());
    let failInteractions = false;
    const flaky: OidcArtifacts = Object.assign(Object.create(store) as OidcArtifacts, {
      save: (kind: string, id: string, payload: OidcArtifact, ttl: number | undefined) =>
        failInteractions && kind === 'Interaction' ? Promise.reject(new StateStoreUnavailableError('down')) : store.save(kind, id, payload, ttl),
    });
    const down = useOidcGateway({}, { overrides: { [TOKENS.OidcArtifacts]: flaky } });

    it('answers 503 and never accepts the old login instead', async () => {
      const browser = await loggedInBrowser(down.gw.url);
      const { url } = await pkceAuthorization(down.app, CALLBACK, { prompt: 'login' });
      const res = await browser.fetch(url.toString());
      const interaction = new URL(res.headers.get('location') as string, down.gw.url).toString();
      failInteractions = true;
      try {
        const answer = await browser.follow(interaction);
        expect(answer.url.searchParams.get('code')).toBeNull();
        expect(answer.res?.status).toBe(503);
      } finally {
        failInteractions = false;
      }
    });
  });
});
