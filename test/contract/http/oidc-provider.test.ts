import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as client from 'openid-client';
import { rawRequest } from '../../support/http';
import {
  APP_SECRET,
  CALLBACK,
  Browser,
  codeFlow,
  discoverClient,
  loggedInBrowser,
  OIDC_PEOPLE,
  pkceAuthorization,
  startOidcGateway,
  useOidcGateway,
} from '../../support/oidc-gateway';
import type { RunningGateway } from '../../support/server';

// The first request loads oidc-provider (and, under Jest, transforms it): allow for that once.
jest.setTimeout(60_000);

describe('the OpenID Connect provider', () => {
  const oidc = useOidcGateway({ OIDC_CLIENTS_APP_NAME: 'The App' });

  it('publishes discovery at APP_URL/.well-known/openid-configuration with issuer = APP_URL exactly and every endpoint under /oidc', async () => {
    const meta = oidc.app.serverMetadata();
    expect(meta.issuer).toBe(oidc.gw.url);
    for (const endpoint of [
      meta.authorization_endpoint,
      meta.token_endpoint,
      meta.userinfo_endpoint,
      meta.jwks_uri,
      meta.revocation_endpoint,
      meta.introspection_endpoint,
      meta.end_session_endpoint,
    ])
      expect(endpoint).toMatch(new RegExp(`^${oidc.gw.url}/oidc/`));
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.response_types_supported).toEqual(['code']);
    expect(meta.scopes_supported).toEqual(expect.arrayContaining(['openid', 'offline_access', 'email', 'profile', 'groups']));
    expect(meta.id_token_signing_alg_values_supported).toContain('RS256');
  });

  it('pins the published URLs to APP_URL whatever Host the request names', async () => {
    const port = Number(new URL(oidc.gw.url).port);
    const res = await rawRequest(port, 'evil.example.net', '/.well-known/openid-configuration', {
      'x-forwarded-host': 'evil.example.net',
      'x-forwarded-proto': 'https',
    });
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body) as Record<string, string>;
    expect(body.issuer).toBe(oidc.gw.url);
    expect(body.authorization_endpoint).toBe(`${oidc.gw.url}/oidc/auth`);
    expect(res.body).not.toContain('evil');
  });

  it('sends a person without a gateway session to the gateway login page, then back with a code; the ID token verifies', async () => {
    const browser = new Browser(oidc.gw.url);
    const { url, verifier, state } = await pkceAuthorization(oidc.app, CALLBACK);
    const first = await browser.follow(url.toString());
    expect(first.url.pathname).toBe('/login');
    const back = first.url.searchParams.get('redirect_uri') as string;
    // Back to the same authorization request: without a login the provider has stored nothing yet.
    expect(back).toMatch(new RegExp(`^${oidc.gw.url}/oidc/auth\\?`));

    await browser.login('alice', OIDC_PEOPLE.alice.password);
    const done = await browser.follow(back);
    expect(done.url.toString().startsWith(`${CALLBACK}?`)).toBe(true);

    const tokens = await client.authorizationCodeGrant(oidc.app, done.url, { pkceCodeVerifier: verifier, expectedState: state });
    const claims = tokens.claims();
    expect(claims?.iss).toBe(oidc.gw.url);
    expect(claims?.aud).toBe('app');
    expect(claims).toMatchObject({
      email: 'alice@example.test',
      email_verified: true,
      name: 'Alice Liddell',
      preferred_username: 'alice',
      groups: ['admins', 'staff'],
    });
    expect(claims?.sub).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(claims?.sub).not.toContain('alice');

    const userinfo = await client.fetchUserInfo(oidc.app, tokens.access_token, claims?.sub as string);
    expect(userinfo).toMatchObject({ sub: claims?.sub, email: 'alice@example.test', preferred_username: 'alice', groups: ['admins', 'staff'] });
  });
});

describe('OIDC_SIGNING_KEY_FILE with two keys (a rotation in progress)', () => {
  let gw: RunningGateway & { dir: string };
  const pem = (): string => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  const newer = pem();
  const older = pem();
  const file = join(tmpdir(), `portcullis-oidc-keys-${process.pid}.pem`);
  beforeAll(async () => {
    writeFileSync(file, `${newer}\n${older}`, { mode: 0o600 });
    gw = await startOidcGateway({
      OIDC_SIGNING_KEY_FILE: file,
      OIDC_CLIENTS_APP_CLIENT_ID: 'app',
      OIDC_CLIENTS_APP_CLIENT_SECRET: APP_SECRET,
      OIDC_CLIENTS_APP_REDIRECT_URIS: CALLBACK,
    });
  });
  afterAll(async () => {
    await gw.close();
    rmSync(file, { force: true });
  });

  it('signs ID tokens with the first key and publishes both', async () => {
    const rp = await discoverClient(gw.url, 'app', APP_SECRET);
    const { keys } = (await (await fetch(rp.serverMetadata().jwks_uri as string)).json()) as { keys: { kid: string; n: string }[] };
    const newerN = (createPublicKey(newer).export({ format: 'jwk' }) as { n: string }).n;
    const olderN = (createPublicKey(older).export({ format: 'jwk' }) as { n: string }).n;
    expect(keys.map((k) => k.n)).toEqual([newerN, olderN]);

    const browser = await loggedInBrowser(gw.url);
    const tokens = await codeFlow(browser, rp, CALLBACK, { scope: 'openid', state: 's' });
    const header = JSON.parse(Buffer.from((tokens.id_token as string).split('.')[0], 'base64url').toString()) as { kid: string; alg: string };
    expect(header).toMatchObject({ alg: 'RS256', kid: keys[0].kid });
  });
});
