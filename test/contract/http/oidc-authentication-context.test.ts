import * as client from 'openid-client';
import { totpCode } from '../../support/http';
import { Browser, CALLBACK, codeFlow, loggedInBrowser, OIDC_PEOPLE, pkceAuthorization, useOidcGateway } from '../../support/oidc-gateway';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/**
 * How the person proved who they are reaches the relying party (issue 33): `amr`, `acr` and
 * `auth_time` in the ID token from the gateway session's proofs; `acr_values` and `max_age` send a
 * session that does not meet them to the gateway's step-up (not a new login), and an `acr` this
 * account cannot reach is refused with `unmet_authentication_requirements`, never issued weaker.
 */
describe('OpenID Connect amr, acr and auth_time from the gateway session', () => {
  const oidc = useOidcGateway();
  /** Carol (password and TOTP), logged in once: a TOTP code opens one login, and the window holds few. */
  let carolBrowser: Browser | undefined;
  const carol = async (): Promise<Browser> => (carolBrowser ??= await loggedInBrowser(oidc.gw.url, 'carol'));

  async function idToken(browser: Browser, params: Record<string, string> = {}): Promise<client.IDToken> {
    return (await codeFlow(browser, oidc.app, CALLBACK, params)).claims() as client.IDToken;
  }

  it('publishes acr_values_supported (sfa, mfa, phr) and amr, acr, auth_time among claims_supported', async () => {
    const res = await fetch(`${oidc.gw.url}/.well-known/openid-configuration`);
    const discovery = (await res.json()) as Record<string, unknown>;
    expect(discovery.acr_values_supported).toEqual(['sfa', 'mfa', 'phr']);
    expect(discovery.claims_supported).toEqual(expect.arrayContaining(['sub', 'acr', 'amr', 'auth_time']));
  });

  it('tells a password login as amr ["pwd"] and acr sfa, and a password and TOTP login as ["pwd","otp","mfa"] and mfa', async () => {
    const before = nowSeconds();
    const alice = await idToken(await loggedInBrowser(oidc.gw.url, 'alice'));
    expect(alice).toMatchObject({ amr: ['pwd'], acr: 'sfa' });
    expect(alice.auth_time).toBeGreaterThanOrEqual(before);
    expect(await idToken(await carol())).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'mfa' });
  });

  it('keeps single sign-on for acr_values the session meets, and reports the value asked that it meets', async () => {
    const browser = await carol();
    // phr is out of reach and listed first; mfa is met: the token says mfa.
    expect(await idToken(browser, { acr_values: 'phr mfa' })).toMatchObject({ acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] });
    // A stronger login meets a weaker ask, and the relying party gets the value it listed.
    expect(await idToken(browser, { acr_values: 'sfa' })).toMatchObject({ acr: 'sfa', amr: ['pwd', 'otp', 'mfa'] });
    // Another provider's values are not ours to judge: nothing is asked.
    expect(await idToken(browser, { acr_values: 'urn:example:loa:3' })).toMatchObject({ acr: 'mfa' });
  });

  it('answers unmet_authentication_requirements, never a weaker token, when the account cannot reach the acr asked', async () => {
    // alice has no second factor; carol has no passkey.
    for (const [name, acr] of [
      ['alice', 'mfa'],
      ['carol', 'phr'],
    ] as const) {
      const browser = name === 'carol' ? await carol() : await loggedInBrowser(oidc.gw.url, name);
      const { url } = await pkceAuthorization(oidc.app, CALLBACK, { acr_values: acr });
      const done = await browser.follow(url.toString());
      expect(done.url.toString().startsWith(`${CALLBACK}?`)).toBe(true);
      expect(done.url.searchParams.get('error')).toBe('unmet_authentication_requirements');
      expect(done.url.searchParams.get('code')).toBeNull();
    }
  });

  it('answers prompt=none with login_required when the session does not meet the acr asked', async () => {
    const browser = await loggedInBrowser(oidc.gw.url, 'alice');
    await idToken(browser);
    const { url } = await pkceAuthorization(oidc.app, CALLBACK, { prompt: 'none', acr_values: 'mfa' });
    const done = await browser.follow(url.toString());
    expect(done.url.searchParams.get('error')).toBe('login_required');
  });

  it('sends a session older than max_age to a step-up that a TOTP code completes, and the ID token has the new auth_time and amr', async () => {
    const browser = await carol();
    const first = await idToken(browser);
    await pause(2100);
    const { url, verifier, state } = await pkceAuthorization(oidc.app, CALLBACK, { max_age: '1' });
    const sent = await browser.follow(url.toString());
    expect(sent.url.pathname).toBe('/login');
    const reference = sent.url.searchParams.get('step_up') as string;
    expect(reference).toEqual(expect.any(String));
    const described = await browser.fetch(`${oidc.gw.url}/api/step-up?ref=${encodeURIComponent(reference)}`);
    expect(await described.json()).toMatchObject({ username: 'carol', methods: ['password', 'totp'] });
    const provedAt = nowSeconds();
    // The next step's code: the login spent this step's, and a code is never taken twice.
    const stepped = await browser.stepUp(reference, { method: 'totp', code: await totpCode(undefined, nowSeconds() + 30) });
    expect(stepped.status).toBe(200);
    const done = await browser.follow(stepped.redirect as string);
    expect(done.url.toString().startsWith(`${CALLBACK}?`)).toBe(true);
    const claims = (await client.authorizationCodeGrant(oidc.app, done.url, { pkceCodeVerifier: verifier, expectedState: state, maxAge: 1 })).claims();
    expect(claims?.auth_time).toBeGreaterThanOrEqual(provedAt);
    expect(claims?.auth_time).toBeGreaterThan(first.auth_time as number);
    expect(claims).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'mfa', preferred_username: 'carol' });
  });

  it('sends max_age=0 to the step-up too (not a whole new login), and prompt=none with it answers login_required', async () => {
    const browser = await loggedInBrowser(oidc.gw.url, 'alice');
    const first = await idToken(browser);
    await pause(1100);
    const none = await browser.follow((await pkceAuthorization(oidc.app, CALLBACK, { prompt: 'none', max_age: '0' })).url.toString());
    expect(none.url.searchParams.get('error')).toBe('login_required');
    const { url, verifier, state } = await pkceAuthorization(oidc.app, CALLBACK, { max_age: '0' });
    const sent = await browser.follow(url.toString());
    expect(sent.url.pathname).toBe('/login');
    const reference = sent.url.searchParams.get('step_up') as string;
    expect(reference).toEqual(expect.any(String));
    // Coming back to the authorization without the step-up does not pass: the proof must be made after the request.
    const described = (await (await browser.fetch(`${oidc.gw.url}/api/step-up?ref=${encodeURIComponent(reference)}`)).json()) as { returnTo: string };
    expect(described.returnTo).toMatch(/\/oidc\/interaction\//);
    const back = await browser.follow(described.returnTo);
    expect(back.url.pathname).toBe('/login');
    expect(back.url.searchParams.get('step_up')).toEqual(expect.any(String));
    const provedAt = nowSeconds();
    const stepped = await browser.stepUp(reference, { method: 'password', password: OIDC_PEOPLE.alice.password });
    expect(stepped.status).toBe(200);
    const done = await browser.follow(stepped.redirect as string);
    const claims = (await client.authorizationCodeGrant(oidc.app, done.url, { pkceCodeVerifier: verifier, expectedState: state, maxAge: 0 })).claims();
    expect(claims?.auth_time).toBeGreaterThanOrEqual(provedAt);
    expect(claims?.auth_time).toBeGreaterThan(first.auth_time as number);
    expect(claims).toMatchObject({ amr: ['pwd'], acr: 'sfa' });
  });

  it('takes the login just made as the fresh proof max_age=0 asks of a browser without a session: no step-up after it', async () => {
    const browser = new Browser(oidc.gw.url);
    const { url, verifier, state } = await pkceAuthorization(oidc.app, CALLBACK, { max_age: '0', portcullis_max_age_zero: '1' });
    const first = await browser.follow(url.toString());
    expect(first.url.pathname).toBe('/login');
    const back = first.url.searchParams.get('redirect_uri') as string;
    expect(new URL(back).searchParams.has('max_age')).toBe(false);
    expect(new URL(back).searchParams.has('portcullis_max_age_zero')).toBe(false);
    const loggedInAt = nowSeconds();
    await browser.login('alice', OIDC_PEOPLE.alice.password);
    const done = await browser.follow(back);
    expect(done.url.toString().startsWith(`${CALLBACK}?`)).toBe(true);
    const claims = (await client.authorizationCodeGrant(oidc.app, done.url, { pkceCodeVerifier: verifier, expectedState: state })).claims();
    expect(claims?.auth_time).toBeGreaterThanOrEqual(loggedInAt);
  });

  it('does not take the step-up of one session for another: the reference is bound to the session it was made for', async () => {
    const browser = await loggedInBrowser(oidc.gw.url, 'alice');
    await pause(2100);
    const { url } = await pkceAuthorization(oidc.app, CALLBACK, { max_age: '1' });
    const sent = await browser.follow(url.toString());
    const reference = sent.url.searchParams.get('step_up') as string;
    const other = await loggedInBrowser(oidc.gw.url, 'alice');
    expect((await other.stepUp(reference, { method: 'password', password: OIDC_PEOPLE.alice.password })).status).toBe(400);
  });

  it('brings a single sign-on ID token up to date with a login made since on the gateway, not the one the provider saw first', async () => {
    const browser = await loggedInBrowser(oidc.gw.url, 'alice');
    const first = await idToken(browser);
    await pause(1100);
    // A new login on the gateway's page, with no authorization in between.
    await browser.login('alice', OIDC_PEOPLE.alice.password);
    const again = await idToken(browser);
    expect(again.sub).toBe(first.sub);
    expect(again.auth_time).toBeGreaterThan(first.auth_time as number);
  });
});
