import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startOidcServer, type OidcServer } from '../support/oidc';
import { freePort } from '../support/net';
import { relyingPartyRedirectUri, startApacheRelyingParty, type RelyingParty } from './support/apache';
import { loginAtOidcServer } from './support/flows';
import { CHROMIUM_ARGS } from './support/stack';

/**
 * The relying-party harness on its own: Apache with mod_auth_openidc (Debian's packages) in front
 * of the test OpenID Connect server (panva's oidc-provider, test/support/oidc-server.mjs), so the
 * harness is proven independently of the gateway's provider (test/e2e/oidc-*.e2e.test.ts use it
 * against the gateway).
 */
/** A GET to 127.0.0.1 with the given Host (Node's fetch cannot set it). */
function getVia127(port: number, host: string, path: string): Promise<{ status: number; location: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    // mod_auth_openidc redirects only what looks like a browser (Accept: text/html); anything else gets 401.
    const req = request({ host: '127.0.0.1', port, path, headers: { host, accept: 'text/html' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

let dir: string;
let oidc: OidcServer;
let rp: RelyingParty;
let browser: Browser;

const SITES = [
  { host: 'rp1.example.test', clientId: 'apache-rp1', clientSecret: 'apache-rp1-secret-not-a-secret-0123456789' },
  { host: 'rp2.example.test', clientId: 'apache-rp2', clientSecret: 'apache-rp2-secret-not-a-secret-0123456789' },
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portcullis-apache-'));
  const port = await freePort();
  oidc = await startOidcServer({
    clients: SITES.map((s) => ({ client_id: s.clientId, client_secret: s.clientSecret, redirect_uris: [relyingPartyRedirectUri(s.host, port)] })),
    accounts: { olivia: { email: 'olivia@example.test', email_verified: true, name: 'Olivia', groups: ['staff', 'ops'] } },
  });
  rp = await startApacheRelyingParty(join(dir, 'apache'), { issuer: oidc.issuer, port, sites: SITES });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  await rp?.stop();
  await oidc?.close();
  if (process.env.E2E_KEEP_DIR === undefined && dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test('mod_auth_openidc sends an anonymous visitor to the provider and shows the page with its claims after login', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(rp.protectedUrl('rp1.example.test'));
  await loginAtOidcServer(page, oidc.issuer, 'olivia');
  await page.waitForURL(rp.protectedUrl('rp1.example.test'));
  await expect(page.locator('#remote-user').textContent()).resolves.toBe('olivia');
  await expect(page.locator('#email').textContent()).resolves.toBe('olivia@example.test');
  await expect(page.locator('#groups').textContent()).resolves.toBe('staff,ops');

  // The second site is another client: the provider's session signs the browser in with no typing.
  await page.goto(rp.protectedUrl('rp2.example.test'));
  await page.waitForURL(rp.protectedUrl('rp2.example.test'));
  await expect(page.locator('#host').textContent()).resolves.toBe('rp2.example.test');
  await expect(page.locator('#remote-user').textContent()).resolves.toBe('olivia');
  await context.close();
});

test('a browser without a login never sees the protected page', async () => {
  const response = await getVia127(rp.port, `rp1.example.test:${rp.port}`, '/protected/');
  expect(response.status).toBe(302);
  expect(response.body).not.toContain('Apache relying party');
  const location = new URL(response.location ?? '');
  expect(`${location.origin}`).toBe(oidc.issuer);
  expect(location.searchParams.get('client_id')).toBe('apache-rp1');
  expect(location.searchParams.get('code_challenge_method')).toBe('S256');
  expect(location.searchParams.get('redirect_uri')).toBe(rp.redirectUri('rp1.example.test'));
});
