import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { submitPassword } from './support/flows';
import { siteBehind } from './support/screenshots';
import { bossLoggedIn, bossUsersFile } from './support/admin';
import { startStack, type ProxyName, type Stack } from './support/stack';

/**
 * The admin console's applications and tokens (issue 36) in Chromium through real Caddy: a
 * stepped-up administrator reads the access rules and the OIDC clients, finds another person's
 * access token in the sessions section and revokes it; the token stops passing forward auth.
 */
const PROXY: ProxyName = 'caddy';
const CLIENT_SECRET = 'e2e-admin-apps-client-secret-0123456789';

/** The status of a GET of `url` sent to 127.0.0.1 (every *.example.test host is this machine) with `headers`. */
function statusThrough(url: string, headers: Record<string, string>): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: Number(u.port), path: '/', headers: { ...headers, host: u.host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

let stack: Stack;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portcullis-admin-apps-e2e-'));
  const usersFile = bossUsersFile(dir);
  stack = await startStack({
    proxies: [PROXY],
    accounts: [{ username: 'worker' }],
    env: {
      USERS_FILE: usersFile,
      ADMIN_GROUPS: 'admins',
      OIDC_CLIENTS_WIKI_CLIENT_ID: 'wiki',
      OIDC_CLIENTS_WIKI_NAME: 'Team wiki',
      OIDC_CLIENTS_WIKI_CLIENT_SECRET: CLIENT_SECRET,
      OIDC_CLIENTS_WIKI_REDIRECT_URIS: 'https://wiki.example.test/cb',
    },
    chromiumArgs: (gatewayUrl) => [`--unsafely-treat-insecure-origin-as-secure=${gatewayUrl}`],
  });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an administrator reads the applications and OIDC clients and revokes another person’s token', async () => {
  const site = siteBehind(stack, PROXY);
  const worker = stack.accounts.worker;

  // The person makes a token on their account page's API; it passes the proxy.
  const them = await stack.newPage();
  await them.page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(them.page, worker.username, worker.password);
  await them.page.waitForURL(`${stack.gatewayUrl}/account`);
  const token = await them.page.evaluate(async () => {
    const res = await fetch('/api/account/tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'nightly' }),
    });
    return ((await res.json()) as { token: string }).token;
  });
  const withToken = () => statusThrough(site.url, { authorization: `Bearer ${token}` });
  expect(await withToken()).toBe(200);

  // The administrator: a full login with TOTP is a fresh second factor, so /admin opens at once.
  const admin = await bossLoggedIn(stack);
  await admin.page.goto(`${stack.gatewayUrl}/admin`);

  await admin.page.locator('#admin-apps li').first().waitFor();
  expect(await admin.page.locator('#admin-default-policy').textContent()).toMatch(/^Default policy: /);
  const client = admin.page.locator('li[data-client="wiki"]');
  await client.waitFor();
  expect(await client.textContent()).toContain('Team wiki');
  expect(await client.textContent()).toContain('https://wiki.example.test/cb');
  expect(await admin.page.content()).not.toContain(CLIENT_SECRET);

  const row = admin.page.locator('li[data-token-owner="worker"]');
  await row.waitFor();
  expect(await row.textContent()).toContain('nightly');
  await row.getByRole('button', { name: 'Revoke' }).click();
  await admin.page.locator('#admin-status', { hasText: 'The token “nightly” is revoked.' }).waitFor();
  await row.waitFor({ state: 'detached' });
  expect(await withToken()).not.toBe(200);
  expect(admin.problems).toEqual([]);
  await them.context.close();
  await admin.context.close();
}, 90_000);
