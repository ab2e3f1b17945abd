import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { GatewayBrowser } from '../../support/oauth-browser';
import { loginAtProvider, startOidcServer, type OidcServer } from '../../support/oidc';
import { startGateway, type RunningGateway } from '../../support/server';

const APP_URL = 'https://auth.example.test';
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const callback = `${APP_URL}/api/oauth/callback/pocket`;
const CLIENT = {
  client_id: 'portcullis-pocket',
  client_secret: 'pocket-client-secret-for-tests',
  redirect_uris: [callback],
  // Registered for back-channel logout: the provider then puts `sid` in its ID tokens.
  backchannel_logout_uri: `${APP_URL}/api/oauth/backchannel/pocket`,
  backchannel_logout_session_required: true,
};

jest.setTimeout(60_000);

/**
 * Issue 35, the client side: the team's OpenID Connect test server (a real oidc-provider) is the
 * upstream "Sign in with …" provider; its logout token, posted to
 * `/api/oauth/backchannel/<provider>`, ends the gateway sessions made from that provider session
 * (`sid`) or subject (`sub`). Anything not exactly right is refused 400 and ends nothing.
 */
describe('back-channel logout from an upstream OpenID Connect provider', () => {
  let provider: OidcServer;
  let gw: RunningGateway;
  let key: CryptoKey;
  let strangerKey: CryptoKey;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    key = pair.privateKey;
    strangerKey = (await generateKeyPair('RS256')).privateKey;
    const jwk = { ...(await exportJWK(pair.privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    provider = await startOidcServer({
      clients: [CLIENT],
      accounts: {
        ann: { email: 'ann@pocket.test', email_verified: true, name: 'Ann' },
        bea: { email: 'bea@pocket.test', email_verified: true, name: 'Bea' },
      },
      jwks: { keys: [jwk] },
      backchannel: true,
    });
    gw = await startGateway({
      OAUTH_PROVIDERS_POCKET_CLIENT_ID: CLIENT.client_id,
      OAUTH_PROVIDERS_POCKET_CLIENT_SECRET: CLIENT.client_secret,
      OAUTH_PROVIDERS_POCKET_ISSUER: provider.issuer,
      OAUTH_PROVIDERS_POCKET_SCOPES: 'openid email profile',
      OAUTH_WHITELIST: '*@pocket.test',
    });
  });
  afterAll(async () => {
    await gw?.close();
    await provider?.close();
  });

  /** A browser logged in to the gateway through the provider as `account`, and the provider session's sid. */
  async function loggedIn(account: string): Promise<{ browser: GatewayBrowser; sid: string }> {
    const browser = new GatewayBrowser(gw.url);
    const { url } = await browser.start('pocket');
    const res = await browser.callback(await loginAtProvider(url!.toString(), account, callback), 'api');
    expect(res.status).toBe(200);
    const { sid } = (await (await fetch(`${provider.issuer}/test/sid?account=${account}`)).json()) as { sid: string };
    expect(typeof sid).toBe('string');
    return { browser, sid };
  }
  const isLoggedIn = async (browser: GatewayBrowser): Promise<boolean> => (await browser.user()).isLoggedIn === true;

  /** A logout token as the provider signs it, `claims` changed or removed (undefined) on top. */
  function logoutToken(claims: Record<string, unknown>, signWith: CryptoKey = key): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const all: Record<string, unknown> = {
      iss: provider.issuer,
      aud: CLIENT.client_id,
      iat: now,
      exp: now + 120,
      jti: randomUUID(),
      events: { [EVENT]: {} },
      ...claims,
    };
    for (const [name, value] of Object.entries(all)) if (value === undefined) delete all[name];
    return new SignJWT(all as JWTPayload).setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'logout+jwt' }).sign(signWith);
  }
  const post = (body: string, contentType = 'application/x-www-form-urlencoded', providerId = 'pocket'): Promise<Response> =>
    fetch(`${gw.url}/api/oauth/backchannel/${providerId}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  const postToken = (token: string): Promise<Response> => post(new URLSearchParams({ logout_token: token }).toString());

  it('ends the session made from the provider session the token names (sid), and no other', async () => {
    const ann = await loggedIn('ann');
    const bea = await loggedIn('bea');
    const res = await postToken(await logoutToken({ sid: ann.sid, sub: 'ann' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await isLoggedIn(ann.browser)).toBe(false);
    expect(await isLoggedIn(bea.browser)).toBe(true);
  });

  it('ends every session of the subject when the token names only `sub`', async () => {
    const first = await loggedIn('bea');
    const second = await loggedIn('bea');
    expect((await postToken(await logoutToken({ sub: 'bea' }))).status).toBe(200);
    expect(await isLoggedIn(first.browser)).toBe(false);
    expect(await isLoggedIn(second.browser)).toBe(false);
  });

  it('refuses 400 invalid_logout_token, ending nothing: a wrong aud or iss, a bad signature, a nonce, no events, a stale or id-less token', async () => {
    const ann = await loggedIn('ann');
    const bad = [
      await logoutToken({ sid: ann.sid, aud: 'someone-else' }),
      await logoutToken({ sid: ann.sid, iss: 'https://evil.example.test' }),
      await logoutToken({ sid: ann.sid }, strangerKey),
      await logoutToken({ sid: ann.sid, nonce: 'n-1' }),
      await logoutToken({ sid: ann.sid, events: undefined }),
      await logoutToken({ sid: ann.sid, events: { 'http://schemas.openid.net/event/other': {} } }),
      await logoutToken({ sid: ann.sid, iat: Math.floor(Date.now() / 1000) - 3600, exp: Math.floor(Date.now() / 1000) - 3000 }),
      await logoutToken({ sid: undefined, sub: undefined }),
      await logoutToken({ sid: ann.sid, jti: undefined }),
    ];
    for (const token of bad) {
      const res = await postToken(token);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_logout_token', error: 'invalid_request' });
    }
    expect(await isLoggedIn(ann.browser)).toBe(true);
  });

  it('takes a jti once: the same token again is refused, and ends nothing more', async () => {
    const ann = await loggedIn('ann');
    // A token for a provider session with no gateway session: accepted, ends nothing, and uses its jti.
    const token = await logoutToken({ sid: 'some-other-session' });
    expect((await postToken(token)).status).toBe(200);
    expect((await postToken(token)).status).toBe(400);
    expect(await isLoggedIn(ann.browser)).toBe(true);
  });

  it('answers malformed and oversized requests 400 at once, never a 500', async () => {
    const started = Date.now();
    const answers = await Promise.all([
      post('logout_token=not.a.jwt'),
      post('logout_token=' + 'a'.repeat(9000) + '.b.c'),
      post(''),
      post('{"logout_token":"x"}', 'application/json'),
      post(`logout_token=a.b.c&logout_token=d.e.f`),
      post('logout_token=' + 'x'.repeat(200_000)),
      post('logout_token=a.b.c', undefined, 'no-such-provider'),
    ]);
    expect(answers.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 400, 400]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
