import { GatewayBrowser } from '../../support/oauth-browser';
import { loginAtProvider, startOidcServer, type OidcServer } from '../../support/oidc';
import { expectEnvelope } from '../../support/http';
import { hashOf } from '../../support/credentials';
import { startGateway, type RunningGateway } from '../../support/server';
import { closedPort, json, startStub, type StubServer } from '../../support/stub-http';

// The generic provider is a real OpenID Connect server process (oidc-provider); see test/support/oidc-server.mjs.
const APP_URL = 'https://auth.example.test';
const CALLBACK = `${APP_URL}/api/oauth/callback/generic`;
const CLIENT = { client_id: 'portcullis', client_secret: 'generic-client-secret-for-tests', redirect_uris: [CALLBACK] };
const ACCOUNTS = {
  alice: { email: 'alice@example.test', email_verified: true, name: 'Alice Liddell', preferred_username: 'alice', groups: ['admins', 'dev'] },
  bob: { email: 'Bob@Example.test', email_verified: true, name: 'Bob', preferred_username: 'bob', groups: 'ops, support' },
  mallory: { email: 'mallory@evil.test', email_verified: true, name: 'Mallory', preferred_username: 'mallory' },
  nomail: { name: 'No Mail', preferred_username: 'nomail' },
  unverified: { email: 'carol@example.test', email_verified: false, name: 'Carol' },
  zwalice: { email: 'al\u200bice@example.test', email_verified: true, name: 'Not Alice', preferred_username: 'zwalice' },
  dora: { email: 'dora@example.test', email_verified: true, name: 'Dora\u200b', preferred_username: 'dora', groups: ['admins,root', 'dev'] },
};

function genericEnv(issuer: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    GENERIC_CLIENT_ID: CLIENT.client_id,
    GENERIC_CLIENT_SECRET: CLIENT.client_secret,
    GENERIC_AUTH_URL: `${issuer}/auth`,
    GENERIC_TOKEN_URL: `${issuer}/token`,
    GENERIC_USER_URL: `${issuer}/me`,
    GENERIC_SCOPES: 'openid email profile groups',
    OAUTH_WHITELIST: '*@example.test',
    ...extra,
  };
}

describe('OAuth login through a real OIDC provider (generic)', () => {
  let oidc: OidcServer;
  let gw: RunningGateway;

  beforeAll(async () => {
    oidc = await startOidcServer({ clients: [CLIENT], accounts: ACCOUNTS });
    // OAuth only: no USERS at all is a valid configuration.
    gw = await startGateway(genericEnv(oidc.issuer));
  });
  afterAll(async () => {
    await gw?.close();
    await oidc?.close();
  });

  async function login(browser: GatewayBrowser, account: string, redirectUri?: string): Promise<URL> {
    const { url } = await browser.start('generic', redirectUri);
    return loginAtProvider(url!.toString(), account, CALLBACK);
  }

  describe('attacks', () => {
    it('refuses a callback whose state differs from the flow of this browser, and sets no session', async () => {
      const browser = new GatewayBrowser(gw.url);
      const back = await login(browser, 'alice');
      back.searchParams.set('state', `${back.searchParams.get('state')}x`);
      const res = await browser.callback(back, 'api');
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ status: 400, code: 'oauth_state_mismatch', message: 'The OAuth state does not match a login of this browser' });
      expect(res.headers.getSetCookie().some((c) => c.startsWith('portcullis-session='))).toBe(false);
      expect((await browser.user()).isLoggedIn).toBe(false);
    });

    it('sends a browser with a mismatched state to the error page with a reason', async () => {
      const browser = new GatewayBrowser(gw.url);
      const back = await login(browser, 'alice');
      back.searchParams.set('state', 'A'.repeat(24));
      const res = await browser.callback(back, 'browser');
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(`${APP_URL}/error?reason=oauth_state_mismatch`);
    });

    it('refuses a callback without state, even with a valid code', async () => {
      const browser = new GatewayBrowser(gw.url);
      const back = await login(browser, 'alice');
      back.searchParams.delete('state');
      const res = await browser.callback(back, 'api');
      expect(res.status).toBe(400);
      expect((await browser.user()).isLoggedIn).toBe(false);
    });

    it('refuses a callback replayed in another browser that holds no flow cookie', async () => {
      const victim = new GatewayBrowser(gw.url);
      const back = await login(victim, 'alice');
      const attacker = new GatewayBrowser(gw.url);
      const res = await attacker.callback(back, 'api');
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ status: 400, code: 'oauth_flow_missing', message: 'No OAuth login is in progress in this browser' });
      expect((await attacker.user()).isLoggedIn).toBe(false);
    });

    it('refuses the same callback a second time, even with a copy of the flow cookie', async () => {
      const browser = new GatewayBrowser(gw.url);
      const back = await login(browser, 'alice');
      const copied = browser.jar.header();
      const first = await browser.callback(back, 'api');
      expect(first.status).toBe(200);
      expect(browser.flowCookies()).toEqual([]);
      const replay = await fetch(`${gw.url}${back.pathname}${back.search}`, {
        headers: { cookie: copied.replace(/portcullis-session=[^;]*;?\s*/, ''), accept: 'application/json' },
      });
      expect(replay.status).toBe(400);
      expect(await replay.json()).toEqual({ status: 400, code: 'oauth_flow_replayed', message: 'This OAuth login was already completed' });
      expect(replay.headers.getSetCookie().some((c) => c.startsWith('portcullis-session=') && !c.startsWith('portcullis-session=;'))).toBe(false);
    });

    it('refuses an account whose e-mail the whitelist does not admit: 403 in API mode, /unauthorized naming the e-mail in browser mode', async () => {
      const api = new GatewayBrowser(gw.url);
      const res = await api.callback(await login(api, 'mallory'), 'api');
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ status: 403, code: 'not_whitelisted', message: 'This account may not log in here' });
      expect((await api.user()).isLoggedIn).toBe(false);

      const browser = new GatewayBrowser(gw.url);
      const page = await browser.callback(await login(browser, 'mallory'), 'browser');
      expect(page.status).toBe(302);
      expect(page.headers.get('location')).toBe(`${APP_URL}/unauthorized?reason=not_whitelisted&username=mallory%40evil.test`);
    });

    it('refuses an identity without e-mail, and one whose e-mail the provider has not verified', async () => {
      for (const account of ['nomail', 'unverified']) {
        const browser = new GatewayBrowser(gw.url);
        const res = await browser.callback(await login(browser, account), 'api');
        expect(res.status).toBe(403);
        expect((await browser.user()).isLoggedIn).toBe(false);
      }
    });

    it('refuses an identity whose e-mail hides a zero-width space, instead of passing it upstream as another person', async () => {
      const browser = new GatewayBrowser(gw.url);
      const res = await browser.callback(await login(browser, 'zwalice'), 'api');
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        status: 403,
        code: 'identity_invalid',
        message: 'The OAuth provider gave an e-mail address with characters that cannot be used here',
      });
      expect((await browser.user()).isLoggedIn).toBe(false);
    });

    it('leaves out a provider group whose name holds a comma, rather than splitting it into two groups upstream', async () => {
      const browser = new GatewayBrowser(gw.url);
      await browser.callback(await login(browser, 'dora'), 'api');
      const res = await fetch(`${gw.url}/api/auth/traefik`, {
        headers: { cookie: browser.jar.header(), 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test', 'x-forwarded-uri': '/' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('remote-user')).toBe('dora@example.test');
      expect(res.headers.get('remote-groups')).toBe('dev');
      expect(res.headers.get('remote-name')).toBe('dora');
    });

    it('reports a person who declined at the provider as 401, and spends the flow', async () => {
      const browser = new GatewayBrowser(gw.url);
      const { url } = await browser.start('generic');
      const res = await browser.callback(`${CALLBACK}?error=access_denied&state=${url!.searchParams.get('state')}`, 'api');
      expect(res.status).toBe(401);
      expect(browser.flowCookies()).toEqual([]);
    });

    const hostile = [
      'https://evil.com/',
      'https://example.test.evil.com/',
      'https://evilexample.test/',
      'https://app.example.test@evil.com/',
      'https://user:pw@app.example.test/',
      'https:\\\\evil.com/',
      'https://app.example.test\\@evil.com/',
      '/\\evil.com',
      '//evil.com/',
      'javascript:alert(document.cookie)//app.example.test',
      'data:text/html,<script>alert(1)</script>',
      'ftp://app.example.test/',
      ' https://app.example.test/',
      'https://app.example.test%2f@evil.com/',
      'https://evil.com#.example.test',
      'https://evil.com?.example.test',
    ];
    it.each(hostile)('keeps no redirect target for %j', async (target) => {
      const browser = new GatewayBrowser(gw.url);
      const { res } = await browser.start('generic', target);
      expect(res.status).toBe(200);
      expect(browser.jar.names().filter((n) => n.startsWith('portcullis-redirect-'))).toEqual([]);
    });

    it('lands on the login page, not off-domain, after a login that asked for a hostile redirect', async () => {
      const browser = new GatewayBrowser(gw.url);
      const res = await browser.callback(await login(browser, 'alice', 'https://example.test.evil.com/steal'), 'browser');
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(`${APP_URL}/login`);
    });

    it('lets two tabs of one browser log in at once, each finishing as its own account', async () => {
      const browser = new GatewayBrowser(gw.url);
      const tabA = (await browser.start('generic', 'https://a.example.test/')).url!;
      const tabB = (await browser.start('generic', 'https://b.example.test/')).url!;
      expect(browser.flowCookies()).toHaveLength(2);
      expect(tabA.searchParams.get('state')).not.toBe(tabB.searchParams.get('state'));
      expect(tabA.searchParams.get('code_challenge')).not.toBe(tabB.searchParams.get('code_challenge'));
      const backA = await loginAtProvider(tabA.toString(), 'alice', CALLBACK);
      const backB = await loginAtProvider(tabB.toString(), 'bob', CALLBACK);

      const resB = await browser.callback(backB, 'browser');
      expect(resB.headers.get('location')).toBe('https://b.example.test/');
      expect(await browser.user()).toMatchObject({ isLoggedIn: true, email: 'bob@example.test' });
      const resA = await browser.callback(backA, 'browser');
      expect(resA.headers.get('location')).toBe('https://a.example.test/');
      expect(await browser.user()).toMatchObject({ isLoggedIn: true, email: 'alice@example.test' });
      expect(browser.flowCookies()).toEqual([]);
    });

    it('keeps at most five live flows per browser, dropping the oldest', async () => {
      const browser = new GatewayBrowser(gw.url);
      await browser.start('generic');
      const first = browser.flowCookies()[0];
      for (let i = 0; i < 5; i += 1) await browser.start('generic');
      expect(browser.flowCookies()).toHaveLength(5);
      expect(browser.flowCookies()).not.toContain(first);
    });
  });

  describe('logging in', () => {
    it('gives an authorization URL with client id, code flow, callback, scopes, 128-bit state and PKCE S256', async () => {
      const browser = new GatewayBrowser(gw.url);
      const { res, url } = await browser.start('generic');
      expect(res.status).toBe(200);
      expect(url!.origin + url!.pathname).toBe(`${oidc.issuer}/auth`);
      const q = url!.searchParams;
      expect(q.get('client_id')).toBe('portcullis');
      expect(q.get('response_type')).toBe('code');
      expect(q.get('redirect_uri')).toBe(CALLBACK);
      expect(q.get('scope')).toBe('openid email profile groups');
      expect(Buffer.from(q.get('state')!, 'base64url').length).toBeGreaterThanOrEqual(16);
      expect(q.get('code_challenge_method')).toBe('S256');
      expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const flow = res.headers.getSetCookie().find((c) => c.startsWith('portcullis-oauth-'))!;
      expect(flow).toMatch(/HttpOnly/);
      expect(flow).toMatch(/SameSite=Lax/);
      expect(flow).toMatch(/Max-Age=600/);
      expect(flow).not.toMatch(/Domain=/);
      expect(flow).not.toContain(q.get('state')!);
    });

    it('logs in a browser and sends it to the login page, which then shows the OAuth identity', async () => {
      const browser = new GatewayBrowser(gw.url);
      const res = await browser.callback(await login(browser, 'alice'), 'browser');
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(`${APP_URL}/login`);
      const session = res.headers.getSetCookie().find((c) => c.startsWith('portcullis-session='))!;
      expect(session).toMatch(/Domain=example\.test/);
      expect(await browser.user()).toEqual({
        status: 200,
        code: 'authenticated',
        message: 'Authenticated',
        isLoggedIn: true,
        username: 'alice@example.test',
        name: 'Alice Liddell',
        email: 'alice@example.test',
        provider: 'generic',
        oauth: true,
        totpPending: 'false',
        // What the session proved, and when (issue 33): a login through the provider, `fed`.
        proven: { oauth: expect.any(Number) },
        amr: ['fed'],
        acr: 'sfa',
        authTime: expect.any(Number),
      });
    });

    it('sends the browser to the redirect target it asked for and clears the flow and redirect cookies', async () => {
      const browser = new GatewayBrowser(gw.url);
      const { res: started, url } = await browser.start('generic', 'https://app.example.test/page?x=1');
      const names = started.headers.getSetCookie().map((c) => c.split('=')[0]);
      const flowId = names.find((n) => n.startsWith('portcullis-oauth-'))!.slice('portcullis-oauth-'.length);
      expect(names).toContain(`portcullis-redirect-${flowId}`);
      const res = await browser.callback(await loginAtProvider(url!.toString(), 'alice', CALLBACK), 'browser');
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('https://app.example.test/page?x=1');
      const cleared = res.headers
        .getSetCookie()
        .filter((c) => /Max-Age=0/.test(c))
        .map((c) => c.split('=')[0]);
      expect(cleared).toEqual(expect.arrayContaining([`portcullis-oauth-${flowId}`, `portcullis-redirect-${flowId}`]));
      expect(browser.jar.names().filter((n) => n.includes(flowId))).toEqual([]);
    });

    it('sends an API client to the redirect target it asked for too, as the spec says', async () => {
      const browser = new GatewayBrowser(gw.url);
      const res = await browser.callback(await login(browser, 'alice', 'https://example.test/'), 'api');
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('https://example.test/');
    });

    it('answers API mode with 200 Logged in and the session cookie', async () => {
      const browser = new GatewayBrowser(gw.url);
      const res = await browser.callback(await login(browser, 'alice'), 'api');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 200, code: 'logged_in', message: 'Logged in' });
      expect((await browser.user()).provider).toBe('generic');
    });

    it('passes the provider groups, as array or as one string, on as Remote-Groups', async () => {
      for (const [account, groups] of [
        ['alice', 'admins,dev'],
        ['bob', 'ops,support'],
      ]) {
        const browser = new GatewayBrowser(gw.url);
        await browser.callback(await login(browser, account), 'api');
        const res = await fetch(`${gw.url}/api/auth/traefik`, {
          headers: { cookie: browser.jar.header(), 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test', 'x-forwarded-uri': '/' },
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('remote-groups')).toBe(groups);
      }
    });

    it('lists the OAuth-only configuration as configuredProviders [generic]', async () => {
      const res = await fetch(`${gw.url}/api/app`);
      expect(((await res.json()) as { configuredProviders: string[] }).configuredProviders).toEqual(['generic']);
    });
  });

  describe('configuration changes', () => {
    it('ends sessions of a provider removed from the configuration, and of e-mails the whitelist no longer admits', async () => {
      const browser = new GatewayBrowser(gw.url);
      await browser.callback(await login(browser, 'alice'), 'api');
      const cookie = browser.jar.header();
      const withoutGeneric = await startGateway({ USERS: `admin:${hashOf('pw')}` });
      const narrower = await startGateway(genericEnv(oidc.issuer, { OAUTH_WHITELIST: 'bob@example.test' }));
      const same = await startGateway(genericEnv(oidc.issuer));
      try {
        const ask = async (g: RunningGateway) =>
          ((await (await fetch(`${g.url}/api/user`, { headers: { cookie } })).json()) as { isLoggedIn: boolean }).isLoggedIn;
        expect(await ask(withoutGeneric)).toBe(false);
        expect(await ask(narrower)).toBe(false);
        expect(await ask(same)).toBe(true);
      } finally {
        await Promise.all([withoutGeneric.close(), narrower.close(), same.close()]);
      }
    });
  });
});

describe('OAuth providers that are down or answer junk', () => {
  let junk: StubServer;
  let down: RunningGateway;
  let junkToken: RunningGateway;
  let junkUser: RunningGateway;

  beforeAll(async () => {
    junk = await startStub((req, res) => {
      if (req.url === '/token-junk') return json(res, 200, '<html>not json</html>', 'text/html');
      if (req.url === '/token-ok') return json(res, 200, { access_token: 'at', token_type: 'Bearer' });
      if (req.url === '/me-junk') return json(res, 200, '{"email": ');
      return json(res, 404, { error: 'not_found' });
    });
    const port = await closedPort();
    const env = (token: string, user: string) => ({
      GENERIC_CLIENT_ID: 'c',
      GENERIC_CLIENT_SECRET: 's',
      GENERIC_AUTH_URL: `${junk.url}/auth`,
      GENERIC_TOKEN_URL: token,
      GENERIC_USER_URL: user,
      OAUTH_TIMEOUT: '2',
    });
    down = await startGateway(env(`http://127.0.0.1:${port}/token`, `http://127.0.0.1:${port}/me`));
    junkToken = await startGateway(env(`${junk.url}/token-junk`, `${junk.url}/me-junk`));
    junkUser = await startGateway(env(`${junk.url}/token-ok`, `${junk.url}/me-junk`));
  });
  afterAll(async () => {
    await Promise.all([down?.close(), junkToken?.close(), junkUser?.close(), junk?.close()]);
  });

  async function callbackOn(g: RunningGateway, mode: 'browser' | 'api'): Promise<Response> {
    const browser = new GatewayBrowser(g.url);
    const { url } = await browser.start('generic');
    return browser.callback(`${APP_URL}/api/oauth/callback/generic?code=abc&state=${url!.searchParams.get('state')}`, mode);
  }

  it('answers 502, never 500, when the provider cannot be reached', async () => {
    const res = await callbackOn(down, 'api');
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ status: 502, code: 'provider_unavailable', message: 'The OAuth provider cannot be reached; try again later' });
  });

  it('sends a browser to the error page when the provider cannot be reached', async () => {
    const res = await callbackOn(down, 'browser');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${APP_URL}/error?reason=provider_unavailable`);
  });

  it('answers 502 when the token endpoint answers something that is not JSON', async () => {
    const res = await callbackOn(junkToken, 'api');
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ status: 502, code: 'provider_invalid_response', message: 'The OAuth provider gave an unexpected answer' });
  });

  it('answers 502 when the user endpoint answers broken JSON', async () => {
    const res = await callbackOn(junkUser, 'api');
    expect(res.status).toBe(502);
  });
});

describe('OAuth endpoints without the provider', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('pw')}` });
  });
  afterAll(() => gw.close());

  it.each(['url', 'callback'])('answers an unknown provider id on /api/oauth/%s with a 404 envelope saying none is configured', async (endpoint) => {
    const res = await fetch(`${gw.url}/api/oauth/${endpoint}/facebook?redirect_uri=x&code=y`, { redirect: 'manual', headers: { accept: 'application/json' } });
    const body = await expectEnvelope(res, 404);
    expect(body).toMatchObject({ code: 'unknown_provider', message: 'Unknown OAuth provider; none is configured' });
  });

  it.each([
    ['url', 'github'],
    ['url', 'google'],
    ['url', 'generic'],
    ['callback', 'github'],
    ['callback', 'google'],
    ['callback', 'generic'],
  ])('answers /api/oauth/%s for the unconfigured provider %s with a 404 envelope', async (endpoint, provider) => {
    const res = await fetch(`${gw.url}/api/oauth/${endpoint}/${provider}?redirect_uri=https%3A%2F%2Fapp.example.test%2F&code=abc`, {
      redirect: 'manual',
      headers: { accept: 'application/json' },
    });
    expect((await expectEnvelope(res, 404)).message).toMatch(/not configured/);
  });

  it('answers a wrong method on an OAuth path with a 405 envelope', async () => {
    await expectEnvelope(await fetch(`${gw.url}/api/oauth/url/github`, { method: 'POST' }), 405);
  });

  it('answers an OAuth path without a provider with a 404 envelope', async () => {
    await expectEnvelope(await fetch(`${gw.url}/api/oauth/url`), 404);
  });
});

describe('GET /api/app with every provider configured', () => {
  it('lists configuredProviders in the order github, google, generic, username', async () => {
    const gw = await startGateway({
      USERS: `alice:${hashOf('pw')}`,
      GITHUB_CLIENT_ID: 'g',
      GITHUB_CLIENT_SECRET: 's',
      GOOGLE_CLIENT_ID: 'g',
      GOOGLE_CLIENT_SECRET: 's',
      GENERIC_CLIENT_ID: 'g',
      GENERIC_CLIENT_SECRET: 's',
      GENERIC_AUTH_URL: 'https://id.example.test/auth',
      GENERIC_TOKEN_URL: 'https://id.example.test/token',
      GENERIC_USER_URL: 'https://id.example.test/me',
      OAUTH_AUTO_REDIRECT: 'google',
    });
    try {
      const body = (await (await fetch(`${gw.url}/api/app`)).json()) as { configuredProviders: string[]; oauthAutoRedirect: string; providers: unknown[] };
      expect(body.configuredProviders).toEqual(['github', 'google', 'generic', 'username']);
      expect(body.providers).toEqual([
        { id: 'github', name: 'GitHub', oauth: true },
        { id: 'google', name: 'Google', oauth: true },
        { id: 'generic', name: 'Generic', oauth: true },
        { id: 'username', name: 'Username', oauth: false },
      ]);
      expect(body.oauthAutoRedirect).toBe('google');
    } finally {
      await gw.close();
    }
  });
});
