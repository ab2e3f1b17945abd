import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as client from 'openid-client';
import { APP_SECRET, Browser, discoverClient, loggedInBrowser, OIDC_PEOPLE, pkceAuthorization, startOidcGateway } from '../../support/oidc-gateway';
import { verifyRs256 } from '../../support/jwt';
import type { RunningGateway } from '../../support/server';
import { SESSION_COOKIE } from '../../support/http';

/**
 * The signed identity assertion against the OpenID Connect provider it shares keys and subjects
 * with: fetched through discovery's `jwks_uri` as a relying party would, the provider's key
 * verifies it, and its `sub` is the one the same person gets in an ID token.
 */
const CALLBACK = 'http://rp.example.test/callback';
const dir = mkdtempSync(join(tmpdir(), 'portcullis-assertion-jwks-'));
const rules = join(dir, 'access.yaml');

jest.setTimeout(30_000);

/** Forward auth for https://wiki.example.test/ (whose rule asks for an assertion) with `browser`'s session, as traefik asks. */
const askWiki = (gw: RunningGateway, browser: Browser): Promise<Response> =>
  fetch(`${gw.url}/api/auth/traefik`, {
    headers: {
      accept: 'application/json',
      cookie: `${SESSION_COOKIE}=${browser.get(SESSION_COOKIE)}`,
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'wiki.example.test',
      'x-forwarded-uri': '/',
    },
  });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Remote-Assertion and the OpenID Connect provider (one key set, one sub)', () => {
  let gw: RunningGateway & { dir: string };
  let app: client.Configuration;

  beforeAll(async () => {
    writeFileSync(rules, 'apps:\n  wiki:\n    domain: wiki.example.test\n    response:\n      assertion: true\n');
    gw = await startOidcGateway({
      OIDC_CLIENTS_APP_CLIENT_ID: 'app',
      OIDC_CLIENTS_APP_CLIENT_SECRET: APP_SECRET,
      OIDC_CLIENTS_APP_REDIRECT_URIS: CALLBACK,
      ACCESS_CONFIG: rules,
    });
    app = await discoverClient(gw.url, 'app', APP_SECRET);
  }, 30_000);
  afterAll(() => gw.close());

  async function idTokenOf(browser: Browser): Promise<{ sub: string; kid: unknown }> {
    const { url, verifier, state } = await pkceAuthorization(app, CALLBACK);
    const done = await browser.follow(url.toString());
    const tokens = await client.authorizationCodeGrant(app, done.url, { pkceCodeVerifier: verifier, expectedState: state });
    const header = JSON.parse(Buffer.from((tokens.id_token ?? '').split('.')[0], 'base64url').toString('utf8')) as { kid?: unknown };
    return { sub: tokens.claims()?.sub ?? '', kid: header.kid };
  }

  it('verifies against the published JWKS with the ID token key, and names the person by the ID token sub', async () => {
    const browser = await loggedInBrowser(gw.url);
    const idToken = await idTokenOf(browser);

    const res = await askWiki(gw, browser);
    expect(res.status).toBe(200);
    const jwksUri = app.serverMetadata().jwks_uri ?? '';
    const jwks = (await (await fetch(jwksUri)).json()) as { keys: Record<string, unknown>[] };
    // Public halves only.
    for (const key of jwks.keys) expect(key).not.toHaveProperty('d');
    const { header, claims } = verifyRs256(res.headers.get('remote-assertion') ?? '', jwks);
    expect(header.kid).toBe(idToken.kid);
    expect(claims).toMatchObject({
      iss: gw.url,
      aud: 'wiki.example.test',
      sub: idToken.sub,
      email: OIDC_PEOPLE.alice.email,
      groups: OIDC_PEOPLE.alice.groups,
    });
  });
});

/**
 * Signed assertions without any OpenID Connect client: the upstreams still need the keys, so the
 * gateway publishes them at `/oidc/jwks` (nothing else of the provider); without an assertion rule
 * that path stays the UI's 404.
 */
describe('Remote-Assertion on a gateway without OpenID Connect clients', () => {
  let gw: RunningGateway & { dir: string };
  let plain: RunningGateway & { dir: string };

  beforeAll(async () => {
    writeFileSync(rules, 'apps:\n  wiki:\n    domain: wiki.example.test\n    response:\n      assertion: true\n');
    gw = await startOidcGateway({ ACCESS_CONFIG: rules });
    plain = await startOidcGateway();
  }, 30_000);
  afterAll(async () => {
    await Promise.all([gw.close(), plain.close()]);
  });

  it('publishes the JWKS that verifies the assertion, public halves only, and no discovery', async () => {
    const browser = await loggedInBrowser(gw.url);
    const res = await askWiki(gw, browser);
    expect(res.status).toBe(200);
    const published = await fetch(`${gw.url}/oidc/jwks`);
    expect(published.status).toBe(200);
    expect(published.headers.get('content-type')).toContain('json');
    const jwks = (await published.json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    for (const key of jwks.keys) for (const part of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key).not.toHaveProperty(part);
    expect(verifyRs256(res.headers.get('remote-assertion') ?? '', jwks).claims).toMatchObject({ iss: gw.url, aud: 'wiki.example.test' });
    expect((await fetch(`${gw.url}/.well-known/openid-configuration`)).status).toBe(404);
    expect((await fetch(`${gw.url}/oidc/auth?client_id=x`)).status).toBe(404);
  });

  it('publishes nothing when no access rule asks for an assertion', async () => {
    const res = await fetch(`${plain.url}/oidc/jwks`);
    expect(res.status).toBe(404);
  });
});
