import * as client from 'openid-client';
import { APP_SECRET, authorize, CALLBACK, Browser, loggedInBrowser, pkceAuthorization, tokenRequest, useOidcGateway } from '../../support/oidc-gateway';

const SPA_CALLBACK = 'http://localhost:5173/callback';

/**
 * Bad input gets the protocol's own errors (invalid_request, invalid_client, invalid_grant,
 * access_denied...), never a 500, and the browser is never sent to a URI the client did not register.
 */
describe('OpenID Connect provider: attacks and bad input', () => {
  const oidc = useOidcGateway(
    {
      OIDC_CLIENTS_SPA_CLIENT_ID: 'spa',
      OIDC_CLIENTS_SPA_PUBLIC: 'true',
      OIDC_CLIENTS_SPA_REDIRECT_URIS: SPA_CALLBACK,
      OIDC_CLIENTS_OTHER_CLIENT_ID: 'other',
      OIDC_CLIENTS_OTHER_CLIENT_SECRET: `${APP_SECRET}-other`,
      OIDC_CLIENTS_OTHER_REDIRECT_URIS: 'https://other.example.test/cb',
    },
    { clients: { spa: null, other: `${APP_SECRET}-other` } },
  );

  const loggedIn = (): Promise<Browser> => loggedInBrowser(oidc.gw.url);

  async function codeFor(browser: Browser, config = oidc.app, redirectUri = CALLBACK) {
    const { callback, verifier } = await authorize(browser, config, redirectUri, { scope: 'openid email', state: 's' });
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
    return { callback, verifier };
  }

  /** The token request body that redeems a fresh code of `app` for `browser`. */
  async function codeRedemption(browser: Browser): Promise<Record<string, string>> {
    const { callback, verifier } = await codeFor(browser);
    return { grant_type: 'authorization_code', code: callback.searchParams.get('code') as string, redirect_uri: CALLBACK, code_verifier: verifier };
  }

  it.each([
    ['another host', 'https://evil.example.net/callback'],
    ['a longer path', `${CALLBACK}/more`],
    ['an added query', `${CALLBACK}?next=https://evil.example.net`],
    ['another scheme', 'http://rp.example.test/callback'],
    ['another case', 'https://RP.example.test/Callback'],
  ])('refuses an unregistered redirect_uri (%s) with a page, never a redirect', async (_what, redirectUri) => {
    const browser = await loggedIn();
    const { url } = await pkceAuthorization(oidc.app, redirectUri, { scope: 'openid' });
    const res = await browser.fetch(url.toString());
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    const html = await res.text();
    expect(html).toContain('invalid_redirect_uri');
    expect(html).not.toContain('<script');
  });

  it('refuses an authorization without redirect_uri even for a client with a single one', async () => {
    const browser = await loggedIn();
    const res = await browser.fetch(
      `${oidc.gw.url}/oidc/auth?client_id=app&response_type=code&scope=openid&code_challenge=${'x'.repeat(43)}&code_challenge_method=S256`,
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('refuses an unknown client with a page, never a redirect', async () => {
    const res = await fetch(`${oidc.gw.url}/oidc/auth?client_id=nobody&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(CALLBACK)}`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('invalid_client');
  });

  it('requires PKCE of a public client: invalid_request at its registered redirect URI, no code', async () => {
    const browser = await loggedIn();
    const url = client.buildAuthorizationUrl(oidc.client('spa'), { redirect_uri: SPA_CALLBACK, scope: 'openid', state: 'st' });
    const done = await browser.follow(url.toString());
    expect(done.url.origin + done.url.pathname).toBe(SPA_CALLBACK);
    expect(done.url.searchParams.get('error')).toBe('invalid_request');
    expect(done.url.searchParams.get('code')).toBeNull();
  });

  it('refuses the plain PKCE method', async () => {
    const browser = await loggedIn();
    const { url } = await pkceAuthorization(oidc.client('spa'), SPA_CALLBACK, {
      scope: 'openid',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'plain',
    });
    const done = await browser.follow(url.toString());
    expect(done.url.searchParams.get('error')).toBe('invalid_request');
    expect(done.url.searchParams.get('code')).toBeNull();
  });

  it('refuses a code redeemed with the wrong PKCE verifier (invalid_grant)', async () => {
    const { callback } = await codeFor(await loggedIn(), oidc.client('spa'), SPA_CALLBACK);
    await expect(
      client.authorizationCodeGrant(oidc.client('spa'), callback, { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: 's' }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a replayed code (invalid_grant) and revokes the tokens its first use gave', async () => {
    const { callback, verifier } = await codeFor(await loggedIn());
    const tokens = await client.authorizationCodeGrant(oidc.app, callback, { pkceCodeVerifier: verifier, expectedState: 's' });
    await expect(client.authorizationCodeGrant(oidc.app, callback, { pkceCodeVerifier: verifier, expectedState: 's' })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await client.tokenIntrospection(oidc.app, tokens.access_token)).active).toBe(false);
  });

  it('refuses a code redeemed by another client (invalid_grant)', async () => {
    const res = await tokenRequest(oidc.client('other'), 'other', `${APP_SECRET}-other`, await codeRedemption(await loggedIn()));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('refuses a wrong client secret (invalid_client, 401) and never echoes it', async () => {
    const res = await tokenRequest(oidc.app, 'app', 'wrong-secret-wrong-secret-wrong-secret', await codeRedemption(await loggedIn()));
    expect(res.status).toBe(401);
    const text = await res.text();
    expect(JSON.parse(text).error).toBe('invalid_client');
    expect(text).not.toContain('wrong-secret');
  });

  it.each([['client_credentials'], ['password'], ['urn:ietf:params:oauth:grant-type:device_code']])(
    'answers grant_type=%s from an authenticated client with unsupported_grant_type (never unauthorized_client: every client may use every enabled grant)',
    async (grantType) => {
      const res = await tokenRequest(oidc.app, 'app', APP_SECRET, { grant_type: grantType, username: 'alice', password: 'alice-pw', device_code: 'x' });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('unsupported_grant_type');
    },
  );

  it('refuses a logout redirect to an unregistered post_logout_redirect_uri with a page, never a redirect', async () => {
    const browser = await loggedIn();
    const res = await browser.fetch(
      `${oidc.gw.url}/oidc/session/end?client_id=app&post_logout_redirect_uri=${encodeURIComponent('https://evil.example.net/')}`,
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).not.toContain('evil.example.net');
  });

  it('answers a logout confirmation without its xsrf token with an error, ending nothing', async () => {
    const browser = await loggedIn();
    const res = await browser.fetch(`${oidc.gw.url}/oidc/session/end/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'logout=yes',
    });
    expect(res.status).toBe(400);
    const user = await browser.fetch(`${oidc.gw.url}/api/user`);
    expect(((await user.json()) as { isLoggedIn: boolean }).isLoggedIn).toBe(true);
  });

  it('answers unsupported response types with the protocol error at the registered redirect URI', async () => {
    const browser = await loggedIn();
    const done = await browser.follow(`${oidc.gw.url}/oidc/auth?client_id=app&response_type=token&scope=openid&redirect_uri=${encodeURIComponent(CALLBACK)}`);
    expect(done.url.origin + done.url.pathname).toBe(CALLBACK);
    // An implicit response type answers in the fragment, as that flow would have.
    const answer = new URLSearchParams(done.url.hash.slice(1) || done.url.search.slice(1));
    expect(answer.get('error')).toBe('unsupported_response_type');
  });

  it.each([
    ['GET', '/oidc/auth', undefined],
    ['GET', '/oidc/auth?client_id=app', undefined],
    ['POST', '/oidc/token', 'grant_type=authorization_code&code=nope'],
    ['POST', '/oidc/token', '%%%'],
    ['POST', '/oidc/token', 'grant_type=refresh_token&refresh_token=nope&client_id=spa'],
    ['POST', '/oidc/token', 'grant_type=client_credentials'],
    ['GET', '/oidc/me', undefined],
    ['POST', '/oidc/token/introspection', 'token=nope'],
    ['POST', '/oidc/token/revocation', 'token=nope'],
    ['GET', '/oidc/interaction/unknown-uid', undefined],
    ['POST', '/oidc/interaction/unknown-uid', 'x=1'],
    ['GET', '/oidc/session/end?id_token_hint=not-a-jwt', undefined],
    ['GET', '/oidc/nowhere', undefined],
  ])('answers %s %s with a 4xx protocol error, never a 500', async (method, path, body) => {
    const res = await fetch(`${oidc.gw.url}${path}`, {
      method,
      redirect: 'manual',
      headers: body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await res.text()).not.toMatch(/at .*\.js:\d+/);
  });

  it("leaves the login UI and the API alone: /login and /api/user are still the gateway's", async () => {
    expect((await fetch(`${oidc.gw.url}/login`)).headers.get('content-type')).toContain('text/html');
    expect((await fetch(`${oidc.gw.url}/api/user`)).status).toBe(200);
  });
});
