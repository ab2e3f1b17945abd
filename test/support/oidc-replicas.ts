import * as client from 'openid-client';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { loadConfig } from '../../src/composition/config';
import { createGateway } from '../../src/composition/gateway';
import { TEST_SECRET, usersEntry } from './credentials';
import type { RunningGateway } from './server';

/** The relying party of the storage tests: a confidential client asking for refresh tokens. */
export const RP_CLIENT = { id: 'app', secret: 'app-secret-0123456789-0123456789-abcdef', callback: 'https://rp.example.test/callback' };

/** One OIDC client, and alice (password `alice-pw`). */
export function oidcEnv(): Record<string, string> {
  return {
    USERS: usersEntry('alice', 'alice-pw'),
    OIDC_CLIENTS_APP_CLIENT_ID: RP_CLIENT.id,
    OIDC_CLIENTS_APP_CLIENT_SECRET: RP_CLIENT.secret,
    OIDC_CLIENTS_APP_REDIRECT_URIS: RP_CLIENT.callback,
  };
}

/**
 * A gateway on 127.0.0.1:`port` whose APP_URL (the issuer) is `appUrl`: replicas behind one load
 * balancer share APP_URL and listen on their own ports.
 */
export async function startReplica(appUrl: string, port: number, env: Record<string, string>): Promise<RunningGateway> {
  const loaded = loadConfig({ env: { APP_URL: appUrl, SECRET: TEST_SECRET, LOG_LEVEL: 'silent', ADDRESS: '127.0.0.1', PORT: String(port), ...env } });
  if (!loaded.ok) throw new Error(`test config invalid: ${loaded.problems.join('; ')}`);
  const gateway = createGateway(loaded.config);
  const { server } = await gateway.listen(port, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${port}`,
    gateway,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.shutdown();
    },
  };
}

/**
 * The relying party's view of the provider, with every endpoint on `replica` (the issuer stays
 * APP_URL): what a load balancer sending this request to that replica amounts to.
 */
export async function relyingPartyAt(issuer: string, replica: string): Promise<client.Configuration> {
  // Not client.discovery(replica): it insists that the URL it asked is the issuer, and the issuer is APP_URL.
  const metadata = (await (await fetch(`${replica}/.well-known/openid-configuration`)).json()) as client.ServerMetadata;
  const onReplica = (url: string | undefined): string | undefined => (url === undefined ? undefined : url.replace(issuer, replica));
  const config = new client.Configuration(
    {
      ...metadata,
      token_endpoint: onReplica(metadata.token_endpoint),
      userinfo_endpoint: onReplica(metadata.userinfo_endpoint),
      jwks_uri: onReplica(metadata.jwks_uri),
      revocation_endpoint: onReplica(metadata.revocation_endpoint),
      introspection_endpoint: onReplica(metadata.introspection_endpoint),
    },
    RP_CLIENT.id,
    RP_CLIENT.secret,
    // The client is registered for client_secret_basic (the default), the only way the gateway takes its secret.
    client.ClientSecretBasic(RP_CLIENT.secret),
  );
  client.allowInsecureRequests(config);
  return config;
}

/** A browser talking to one replica: its cookies, redirects followed by hand until one leaves it. */
export class ReplicaBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(
    private readonly issuer: string,
    private readonly replica: string,
  ) {}

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const header = [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
    const res = await fetch(url.replace(this.issuer, this.replica), {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: header },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      if (value === '' || attrs.some((a) => /^max-age=0$/i.test(a) || /^expires=thu, 01 jan 1970/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  async login(email: string, password: string): Promise<void> {
    const res = await this.fetch(`${this.replica}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    if (res.status !== 200) throw new Error(`login answered ${res.status}`);
  }

  /** Follows redirects while they stay on the provider (issuer or this replica); resolves the URL that left it. */
  async follow(url: string): Promise<URL> {
    let current = new URL(url);
    for (let hop = 0; hop < 12; hop += 1) {
      const onProvider = current.origin === new URL(this.issuer).origin || current.origin === new URL(this.replica).origin;
      if (!onProvider) return current;
      const res = await this.fetch(current.toString());
      const location = res.headers.get('location');
      if (location === null) throw new Error(`stopped at ${current.pathname} with ${res.status}`);
      current = new URL(location, current);
    }
    throw new Error('too many redirects');
  }
}

/**
 * Runs the code flow with PKCE through `browser` (already logged in) against `rp`: resolves the
 * callback URL holding the code, with what redeeming it needs.
 */
export async function authorize(browser: ReplicaBrowser, rp: client.Configuration): Promise<{ callback: URL; verifier: string; state: string }> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: RP_CLIENT.callback,
    scope: 'openid email offline_access',
    prompt: 'consent',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  const callback = await browser.follow(url.toString());
  if (!callback.toString().startsWith(RP_CLIENT.callback)) throw new Error(`the flow ended at ${callback.toString()}`);
  return { callback, verifier, state };
}

/** The published key set of `replica`, and whether `idToken` verifies against it (issuer, audience, signature). */
export async function verifiesAgainstJwks(idToken: string, issuer: string, replica: string): Promise<{ kids: string[]; verified: boolean }> {
  const jwks = (await (await fetch(`${replica}/oidc/jwks`)).json()) as JSONWebKeySet;
  const verified = await jwtVerify(idToken, createLocalJWKSet(jwks), { issuer, audience: RP_CLIENT.id, currentDate: new Date() }).then(
    () => true,
    () => false,
  );
  return { kids: jwks.keys.map((k) => String(k.kid)), verified };
}

/**
 * Two replicas on one shared store (`sharedEnv`: REDIS_URL or DATABASE_URL) answer one relying
 * party as if they were one provider: a code issued by A is redeemed at B, a refresh token issued
 * by A is used at B (and rotated there), both publish the same key, a revocation at one holds at
 * the other.
 */
export function replicasShareOidcState(name: string, sharedEnv: () => Record<string, string>, freePorts: (n: number) => Promise<number[]>): void {
  describe(`two gateway replicas on ${name} as one OpenID Connect provider`, () => {
    let a: RunningGateway;
    let b: RunningGateway;
    let issuer: string;
    beforeAll(async () => {
      const [portA, portB] = await freePorts(2);
      issuer = `http://127.0.0.1:${portA}`;
      const env = { ...oidcEnv(), ...sharedEnv() };
      a = await startReplica(issuer, portA, env);
      b = await startReplica(issuer, portB, env);
    });
    afterAll(async () => {
      await Promise.all([a?.close(), b?.close()]);
    });

    it('redeems at replica B a code issued by replica A, and B refreshes the tokens', async () => {
      const browser = new ReplicaBrowser(issuer, a.url);
      await browser.login('alice', 'alice-pw');
      const { callback, verifier, state } = await authorize(browser, await relyingPartyAt(issuer, a.url));
      const atB = await relyingPartyAt(issuer, b.url);
      const tokens = await client.authorizationCodeGrant(atB, callback, { pkceCodeVerifier: verifier, expectedState: state });
      expect(tokens.refresh_token).toEqual(expect.any(String));
      expect(tokens.claims()?.iss).toBe(issuer);
      const refreshed = await client.refreshTokenGrant(atB, tokens.refresh_token as string);
      expect(refreshed.access_token).toEqual(expect.any(String));
    });

    it('refreshes at replica B a token replica A issued; the rotated-out token is refused at A', async () => {
      const browser = new ReplicaBrowser(issuer, a.url);
      await browser.login('alice', 'alice-pw');
      const atA = await relyingPartyAt(issuer, a.url);
      const atB = await relyingPartyAt(issuer, b.url);
      const { callback, verifier, state } = await authorize(browser, atA);
      const issued = await client.authorizationCodeGrant(atA, callback, { pkceCodeVerifier: verifier, expectedState: state });
      const rotated = await client.refreshTokenGrant(atB, issued.refresh_token as string);
      expect(rotated.refresh_token).toEqual(expect.any(String));
      expect(rotated.refresh_token).not.toBe(issued.refresh_token);
      const userinfo = await client.fetchUserInfo(atA, rotated.access_token, rotated.claims()?.sub as string);
      expect(userinfo.sub).toBe(issued.claims()?.sub);
      // Reuse of a rotated refresh token at the other replica: refused (the consumed record is shared).
      await expect(client.refreshTokenGrant(atA, issued.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    it('refuses a code a second time at the other replica', async () => {
      const browser = new ReplicaBrowser(issuer, a.url);
      await browser.login('alice', 'alice-pw');
      const atA = await relyingPartyAt(issuer, a.url);
      const { callback, verifier, state } = await authorize(browser, atA);
      await client.authorizationCodeGrant(atA, callback, { pkceCodeVerifier: verifier, expectedState: state });
      await expect(
        client.authorizationCodeGrant(await relyingPartyAt(issuer, b.url), callback, { pkceCodeVerifier: verifier, expectedState: state }),
      ).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    it("publishes the same signing key on both replicas: an ID token from A verifies against B's JWKS", async () => {
      const browser = new ReplicaBrowser(issuer, a.url);
      await browser.login('alice', 'alice-pw');
      const atA = await relyingPartyAt(issuer, a.url);
      const { callback, verifier, state } = await authorize(browser, atA);
      const tokens = await client.authorizationCodeGrant(atA, callback, { pkceCodeVerifier: verifier, expectedState: state });
      const fromA = await verifiesAgainstJwks(tokens.id_token as string, issuer, a.url);
      const fromB = await verifiesAgainstJwks(tokens.id_token as string, issuer, b.url);
      expect(fromB.kids).toEqual(fromA.kids);
      expect(fromB.verified).toBe(true);
    });

    it('honours at B a refresh token revoked at A: refused', async () => {
      const browser = new ReplicaBrowser(issuer, a.url);
      await browser.login('alice', 'alice-pw');
      const atA = await relyingPartyAt(issuer, a.url);
      const { callback, verifier, state } = await authorize(browser, atA);
      const tokens = await client.authorizationCodeGrant(atA, callback, { pkceCodeVerifier: verifier, expectedState: state });
      await client.tokenRevocation(atA, tokens.refresh_token as string);
      await expect(client.refreshTokenGrant(await relyingPartyAt(issuer, b.url), tokens.refresh_token as string)).rejects.toMatchObject({
        error: 'invalid_grant',
      });
    });
  });
}
