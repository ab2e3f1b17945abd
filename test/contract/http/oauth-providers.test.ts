import { GatewayBrowser } from '../../support/oauth-browser';
import { loginAtProvider, startOidcServer, type OidcServer } from '../../support/oidc';
import { startProviderStub, STUB_CLIENT, type ProviderStub } from '../../support/provider-stubs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '../../support/server';
import { closedPort, json, startStub, type StubServer } from '../../support/stub-http';

// Several generic providers in one gateway, each a real OpenID Connect server process
// (test/support/oidc-server.mjs), and the GitHub and Google stand-ins (test/support/provider-stubs.ts).
const APP_URL = 'https://auth.example.test';
const callback = (id: string): string => `${APP_URL}/api/oauth/callback/${id}`;

const POCKET_CLIENT = { client_id: 'portcullis-pocket', client_secret: 'pocket-client-secret-for-tests', redirect_uris: [callback('pocket')] };
const CORP_CLIENT = { client_id: 'portcullis-corp', client_secret: 'corp-client-secret-for-tests', redirect_uris: [callback('corp-sso')] };

describe('several generic OAuth providers in one gateway (OAUTH_PROVIDERS_<ID>_…)', () => {
  let pocket: OidcServer;
  let corp: OidcServer;
  let gw: RunningGateway;

  beforeAll(async () => {
    [pocket, corp] = await Promise.all([
      startOidcServer({
        clients: [POCKET_CLIENT],
        accounts: {
          ann: { email: 'ann@pocket.test', email_verified: true, name: 'Ann', groups: ['readers'] },
          cross: { email: 'cross@corp.test', email_verified: true, name: 'Cross' },
        },
      }),
      startOidcServer({
        clients: [CORP_CLIENT],
        accounts: {
          ben: { email: 'ben@corp.test', email_verified: true, name: 'Ben', groups: ['ops'] },
          pix: { email: 'pix@pocket.test', email_verified: true, name: 'Pix' },
        },
      }),
    ]);
    gw = await startGateway({
      // Discovery: only the issuer, the endpoints come from its metadata.
      OAUTH_PROVIDERS_POCKET_CLIENT_ID: POCKET_CLIENT.client_id,
      OAUTH_PROVIDERS_POCKET_CLIENT_SECRET: POCKET_CLIENT.client_secret,
      OAUTH_PROVIDERS_POCKET_ISSUER: pocket.issuer,
      OAUTH_PROVIDERS_POCKET_NAME: 'Pocket ID',
      OAUTH_PROVIDERS_POCKET_SCOPES: 'openid email profile groups',
      OAUTH_PROVIDERS_POCKET_WHITELIST: '*@pocket.test',
      // Explicit endpoints, tinyauth v4 names; the id's underscore becomes a hyphen.
      OAUTH_PROVIDERS_CORP_SSO_CLIENT_ID: CORP_CLIENT.client_id,
      OAUTH_PROVIDERS_CORP_SSO_CLIENT_SECRET: CORP_CLIENT.client_secret,
      OAUTH_PROVIDERS_CORP_SSO_AUTH_URL: `${corp.issuer}/auth`,
      OAUTH_PROVIDERS_CORP_SSO_TOKEN_URL: `${corp.issuer}/token`,
      OAUTH_PROVIDERS_CORP_SSO_USER_INFO_URL: `${corp.issuer}/me`,
      OAUTH_PROVIDERS_CORP_SSO_SCOPES: 'openid email profile groups',
      OAUTH_PROVIDERS_CORP_SSO_NAME: 'Corp SSO',
      OAUTH_PROVIDERS_CORP_SSO_WHITELIST: '*@corp.test',
      // The global whitelist admits nobody of either provider: each provider's own list decides.
      OAUTH_WHITELIST: 'nobody@example.test',
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([pocket?.close(), corp?.close()]);
  });

  async function login(browser: GatewayBrowser, provider: string, account: string): Promise<URL> {
    const { url } = await browser.start(provider);
    return loginAtProvider(url!.toString(), account, callback(provider));
  }

  it('lists both providers with their names in /api/app', async () => {
    const body = (await (await fetch(`${gw.url}/api/app`)).json()) as { configuredProviders: string[]; providers: unknown[] };
    // Ordered by id, whatever order the environment lists them in.
    expect(body.configuredProviders).toEqual(['corp-sso', 'pocket']);
    expect(body.providers).toEqual([
      { id: 'corp-sso', name: 'Corp SSO', oauth: true },
      { id: 'pocket', name: 'Pocket ID', oauth: true },
    ]);
  });

  it('logs in through the first provider (found by discovery) with its own whitelist', async () => {
    const browser = new GatewayBrowser(gw.url);
    const back = await login(browser, 'pocket', 'ann');
    expect(back.searchParams.get('iss')).toBe(pocket.issuer);
    const res = await browser.callback(back, 'api');
    expect(res.status).toBe(200);
    expect(await browser.user()).toMatchObject({ isLoggedIn: true, email: 'ann@pocket.test', provider: 'pocket', oauth: true });
  });

  it('logs in through the second provider with its own whitelist', async () => {
    const browser = new GatewayBrowser(gw.url);
    const res = await browser.callback(await login(browser, 'corp-sso', 'ben'), 'api');
    expect(res.status).toBe(200);
    expect(await browser.user()).toMatchObject({ isLoggedIn: true, email: 'ben@corp.test', provider: 'corp-sso', name: 'Ben' });
  });

  it("refuses an address that only the other provider's whitelist admits", async () => {
    for (const [provider, account] of [
      ['pocket', 'cross'],
      ['corp-sso', 'pix'],
    ]) {
      const browser = new GatewayBrowser(gw.url);
      const res = await browser.callback(await login(browser, provider, account), 'api');
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe('not_whitelisted');
      expect((await browser.user()).isLoggedIn).toBe(false);
    }
  });

  it("refuses a callback whose iss names the other provider's issuer (mix-up), before the code is exchanged", async () => {
    const browser = new GatewayBrowser(gw.url);
    const back = await login(browser, 'pocket', 'ann');
    back.searchParams.set('iss', corp.issuer);
    const res = await browser.callback(back, 'api');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      status: 400,
      code: 'oauth_issuer_mismatch',
      message: 'The OAuth callback came from another issuer than the login was sent to',
    });
    expect((await browser.user()).isLoggedIn).toBe(false);
  });

  it('refuses a callback without iss from an issuer whose metadata promises it (RFC 9207)', async () => {
    const browser = new GatewayBrowser(gw.url);
    const back = await login(browser, 'pocket', 'ann');
    back.searchParams.delete('iss');
    const res = await browser.callback(back, 'api');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('oauth_issuer_missing');
    expect((await browser.user()).isLoggedIn).toBe(false);
  });

  it('answers an unknown provider id with a 404 envelope, and a malformed one too, never a 500', async () => {
    for (const id of ['nope', 'Pocket', 'a%20b', 'x'.repeat(100)]) {
      for (const endpoint of ['url', 'callback']) {
        const res = await fetch(`${gw.url}/api/oauth/${endpoint}/${id}?code=a&state=b`, { redirect: 'manual', headers: { accept: 'application/json' } });
        expect(res.status).toBe(404);
        const body = (await res.json()) as { code: string; message: string };
        expect(body.code).toBe('unknown_provider');
        expect(body.message).toContain('pocket');
      }
    }
  });
});

describe('GitHub organisations and teams as groups', () => {
  let stub: ProviderStub;
  let gw: RunningGateway;
  const rules = join(mkdtempSync(join(tmpdir(), 'portcullis-github-')), 'rules.yml');
  writeFileSync(
    rules,
    [
      'apps:',
      '  deploy:',
      '    domain: deploy.example.test',
      '    oauth: { groups: ["acme:platform"] }',
      '  band:',
      '    domain: band.example.test',
      '    oauth: { groups: ["acme:band"] }',
      '',
    ].join('\n'),
  );
  const pass = (browser: GatewayBrowser, host: string) =>
    fetch(`${gw.url}/api/auth/traefik`, {
      headers: { cookie: browser.jar.header(), accept: 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-host': host, 'x-forwarded-uri': '/' },
    });
  beforeAll(async () => {
    stub = await startProviderStub('github', {
      octo: {
        github: {
          login: 'octo',
          name: 'Octo',
          email: null,
          emails: [{ email: 'octo@example.test', primary: true, verified: true }],
          orgs: ['acme', 'hobby'],
          teams: [
            { org: 'acme', slug: 'platform' },
            { org: 'hobby', slug: 'band' },
          ],
        },
      },
      loner: { github: { login: 'loner', name: null, email: null, emails: [{ email: 'loner@example.test', primary: true, verified: true }] } },
    });
    gw = await startGateway({
      GITHUB_CLIENT_ID: STUB_CLIENT.id,
      GITHUB_CLIENT_SECRET: STUB_CLIENT.secret,
      GITHUB_URL: stub.url,
      GITHUB_API_URL: `${stub.url}/api/v3`,
      GITHUB_GROUPS: 'teams',
      GITHUB_ORGS: 'acme',
      ACCESS_CONFIG: rules,
    });
  });
  afterAll(async () => {
    await gw?.close();
    await stub?.close();
  });

  async function login(account: string): Promise<{ browser: GatewayBrowser; res: Response; scope: string }> {
    const browser = new GatewayBrowser(gw.url);
    const { url } = await browser.start('github');
    const code = stub.issueCode(url!.toString(), account);
    const res = await browser.callback(`${callback('github')}?code=${code}&state=${url!.searchParams.get('state')}`, 'api');
    return { browser, res, scope: url!.searchParams.get('scope') ?? '' };
  }

  it('asks for read:org and passes orgs and org:team on as Remote-Groups, usable in access rules', async () => {
    const { browser, res, scope } = await login('octo');
    expect(scope.split(' ')).toContain('read:org');
    expect(res.status).toBe(200);
    const auth = await pass(browser, 'deploy.example.test');
    expect(auth.status).toBe(200);
    expect(auth.headers.get('remote-groups')).toBe('acme,hobby,acme:platform,hobby:band');
    // A team of another organisation with the same slug is not that team.
    expect((await pass(browser, 'band.example.test')).status).toBe(403);
  });

  it('refuses a GitHub account outside the organisations of GITHUB_ORGS', async () => {
    const { browser, res } = await login('loner');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('not_whitelisted');
    expect((await browser.user()).isLoggedIn).toBe(false);
  });
});

describe('Google Workspace domain (hd) and the iss response parameter', () => {
  let stub: ProviderStub;
  let gw: RunningGateway;
  beforeAll(async () => {
    stub = await startProviderStub('google', {
      worker: { google: { sub: '1', email: 'worker@corp.test', email_verified: true, name: 'Worker', hd: 'corp.test' } },
      gmail: { google: { sub: '2', email: 'someone@gmail.test', email_verified: true, name: 'Someone' } },
      // Claims an address of the workspace, but Google says the account belongs to no workspace.
      spoof: { google: { sub: '3', email: 'spoof@corp.test', email_verified: true, name: 'Spoof' } },
    });
    gw = await startGateway({
      GOOGLE_CLIENT_ID: STUB_CLIENT.id,
      GOOGLE_CLIENT_SECRET: STUB_CLIENT.secret,
      GOOGLE_AUTH_URL: `${stub.url}/auth`,
      GOOGLE_TOKEN_URL: `${stub.url}/token`,
      GOOGLE_USER_URL: `${stub.url}/v1/userinfo`,
      GOOGLE_HOSTED_DOMAINS: 'corp.test',
    });
  });
  afterAll(async () => {
    await gw?.close();
    await stub?.close();
  });

  async function login(account: string, iss?: string): Promise<{ browser: GatewayBrowser; res: Response; url: URL }> {
    const browser = new GatewayBrowser(gw.url);
    const { url } = await browser.start('google');
    const code = stub.issueCode(url!.toString(), account);
    const back = new URL(`${callback('google')}?code=${code}&state=${url!.searchParams.get('state')}`);
    if (iss !== undefined) back.searchParams.set('iss', iss);
    const res = await browser.callback(back, 'api');
    return { browser, res, url: url! };
  }

  it('sends hd as a hint and admits an account of the workspace', async () => {
    const { browser, res, url } = await login('worker', 'https://accounts.google.com');
    expect(url.searchParams.get('hd')).toBe('corp.test');
    expect(res.status).toBe(200);
    expect(await browser.user()).toMatchObject({ isLoggedIn: true, email: 'worker@corp.test' });
  });

  it('refuses accounts whose hd claim is missing, even with an address of the domain', async () => {
    for (const account of ['gmail', 'spoof']) {
      const { browser, res } = await login(account);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe('not_whitelisted');
      expect((await browser.user()).isLoggedIn).toBe(false);
    }
  });

  it('refuses a callback whose iss is not Google, without exchanging the code', async () => {
    const before = stub.tokenRequests();
    const { browser, res } = await login('worker', 'https://evil.example');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('oauth_issuer_mismatch');
    expect(stub.tokenRequests()).toBe(before);
    expect((await browser.user()).isLoggedIn).toBe(false);
  });
});

describe('a provider whose discovery document cannot be read', () => {
  let gw: RunningGateway;
  let issuer: StubServer;
  beforeAll(async () => {
    // Answers a discovery document that names another issuer: OIDC Discovery says to refuse it.
    issuer = await startStub((req, res) => json(res, 200, { issuer: 'https://other.example.test', authorization_endpoint: 'https://other.example.test/auth' }));
    const down = await closedPort();
    gw = await startGateway({
      OAUTH_PROVIDERS_DOWN_CLIENT_ID: 'id',
      OAUTH_PROVIDERS_DOWN_CLIENT_SECRET: 'secret',
      OAUTH_PROVIDERS_DOWN_ISSUER: `http://127.0.0.1:${down}`,
      OAUTH_PROVIDERS_LIAR_CLIENT_ID: 'id',
      OAUTH_PROVIDERS_LIAR_CLIENT_SECRET: 'secret',
      OAUTH_PROVIDERS_LIAR_ISSUER: issuer.url,
      OAUTH_TIMEOUT: '2',
    });
  });
  afterAll(async () => {
    await gw?.close();
    await issuer?.close();
  });

  it('answers 502 provider_unavailable, never a 500, when the issuer is down or its document names another issuer', async () => {
    for (const id of ['down', 'liar']) {
      const res = await fetch(`${gw.url}/api/oauth/url/${id}`, { headers: { accept: 'application/json' } });
      expect(res.status).toBe(502);
      expect(((await res.json()) as { code: string }).code).toBe('provider_unavailable');
    }
  });
});
