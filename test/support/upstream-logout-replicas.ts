import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { GatewayBrowser } from './oauth-browser';
import { loginAtProvider, startOidcServer, type OidcServer } from './oidc';
import { startReplica } from './oidc-replicas';
import type { RunningGateway } from './server';
import { usersEntry } from './credentials';

const APP_URL = 'https://auth.example.test';
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const CALLBACK = `${APP_URL}/api/oauth/callback/pocket`;
const CLIENT = {
  client_id: 'portcullis-pocket',
  client_secret: 'pocket-client-secret-for-tests',
  redirect_uris: [CALLBACK],
  backchannel_logout_uri: `${APP_URL}/api/oauth/backchannel/pocket`,
  backchannel_logout_session_required: true,
};

/**
 * Issue 35, client side on two replicas sharing `sharedEnv()`'s store: a logout token from the
 * upstream provider (the team's OIDC test server) posted to one replica ends the matching session
 * on the other too; a refused token ends nothing anywhere.
 */
export function upstreamLogoutOnReplicas(name: string, sharedEnv: () => Record<string, string>, freePorts: (n: number) => Promise<number[]>): void {
  describe(`an upstream provider's back-channel logout on two replicas (${name})`, () => {
    jest.setTimeout(90_000);
    let provider: OidcServer;
    let replicas: RunningGateway[] = [];
    let key: CryptoKey;

    beforeAll(async () => {
      const pair = await generateKeyPair('RS256', { extractable: true });
      key = pair.privateKey;
      const jwk = { ...(await exportJWK(pair.privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
      provider = await startOidcServer({
        clients: [CLIENT],
        accounts: { ann: { email: 'ann@pocket.test', email_verified: true, name: 'Ann' } },
        jwks: { keys: [jwk] },
        backchannel: true,
      });
      const env = {
        ...sharedEnv(),
        USERS: usersEntry('alice', 'alice-pw'),
        OAUTH_PROVIDERS_POCKET_CLIENT_ID: CLIENT.client_id,
        OAUTH_PROVIDERS_POCKET_CLIENT_SECRET: CLIENT.client_secret,
        OAUTH_PROVIDERS_POCKET_ISSUER: provider.issuer,
        OAUTH_PROVIDERS_POCKET_SCOPES: 'openid email profile',
        OAUTH_WHITELIST: '*@pocket.test',
      };
      const [a, b] = await freePorts(2);
      replicas = [await startReplica(APP_URL, a, env), await startReplica(APP_URL, b, env)];
    });
    afterAll(async () => {
      await Promise.all(replicas.map((r) => r.close()));
      await provider?.close();
    });

    async function loggedInOn(replica: RunningGateway): Promise<{ browser: GatewayBrowser; sid: string }> {
      const browser = new GatewayBrowser(replica.url);
      const { url } = await browser.start('pocket');
      const res = await browser.callback(await loginAtProvider(url!.toString(), 'ann', CALLBACK), 'api');
      expect(res.status).toBe(200);
      const { sid } = (await (await fetch(`${provider.issuer}/test/sid?account=ann`)).json()) as { sid: string };
      return { browser, sid };
    }
    const logoutToken = (claims: Record<string, unknown>): Promise<string> => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: provider.issuer,
        aud: CLIENT.client_id,
        iat: now,
        exp: now + 120,
        jti: randomUUID(),
        events: { [EVENT]: {} },
        ...claims,
      } as JWTPayload)
        .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'logout+jwt' })
        .sign(key);
    };
    const post = (replica: RunningGateway, token: string): Promise<Response> =>
      fetch(`${replica.url}/api/oauth/backchannel/pocket`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: token }).toString(),
      });
    /** Whether the browser's session still passes on `replica` (revocations reach a replica within moments). */
    async function loggedInAt(browser: GatewayBrowser, replica: RunningGateway): Promise<boolean> {
      const res = await fetch(`${replica.url}/api/user`, { headers: { cookie: browser.jar.header() } });
      return ((await res.json()) as { isLoggedIn?: boolean }).isLoggedIn === true;
    }
    async function eventually(check: () => Promise<boolean>, ms = 3_000): Promise<boolean> {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        if (await check()) return true;
        await new Promise((r) => setTimeout(r, 50));
      }
      return check();
    }

    it('a token posted to one replica ends the session made on the other, on both', async () => {
      const [a, b] = replicas;
      const ann = await loggedInOn(a);
      expect(await loggedInAt(ann.browser, b)).toBe(true);
      const token = await logoutToken({ sid: ann.sid });
      expect((await post(b, token)).status).toBe(200);
      expect(await eventually(async () => !(await loggedInAt(ann.browser, a)))).toBe(true);
      expect(await loggedInAt(ann.browser, b)).toBe(false);
      // Its jti is used on every replica.
      expect((await post(a, token)).status).toBe(400);
    });

    it('a refused token (wrong audience) ends nothing on either replica', async () => {
      const [a, b] = replicas;
      const ann = await loggedInOn(b);
      expect((await post(a, await logoutToken({ sid: ann.sid, aud: 'someone-else' }))).status).toBe(400);
      await new Promise((r) => setTimeout(r, 300));
      expect([await loggedInAt(ann.browser, a), await loggedInAt(ann.browser, b)]).toEqual([true, true]);
    });
  });
}
