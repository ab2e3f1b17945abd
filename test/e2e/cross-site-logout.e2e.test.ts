import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { submitPassword } from './support/flows';
import { startStack, type Stack } from './support/stack';

/**
 * Logout CSRF in Chromium (docs/security.md): a page of another origin, on another port, posts a
 * form to the gateway's `/api/logout` as soon as it loads. Once from a sibling host under the
 * cookie's domain (same-site: the Lax session cookie goes along, so only the gateway's check stands
 * in the way), once from a wholly other site. Either way the person stays logged in.
 */

let stack: Stack;
let attacker: Server;
let attackerPort: number;
let posted = 0;

beforeAll(async () => {
  stack = await startStack({ proxies: [], accounts: [{ username: 'alice' }] });
  attacker = createServer((req, res) => {
    posted += 1;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>win a prize</title><form method="post" action="${stack.gatewayUrl}/api/logout">` +
        '<input type="hidden" name="x" value="1"></form><script>document.forms[0].submit()</script>',
    );
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerPort = (attacker.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => attacker?.close(resolve));
  await stack?.stop();
});

async function loggedIn(page: Page): Promise<boolean> {
  // Asked by the browser itself (its cookie jar, its host mapping), as the gateway's own page would.
  const res = await page.goto(`${stack.gatewayUrl}/api/user`);
  return ((await res?.json()) as { isLoggedIn: boolean }).isLoggedIn;
}

test.each([
  ['a sibling host under the cookie domain (same-site)', 'evil.example.test'],
  ['another site', 'localhost'],
])('a form auto-posted to /api/logout from %s is refused and the session survives', async (_what, host) => {
  const { context, page } = await stack.newPage();
  await page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(page, 'alice', stack.accounts.alice.password);
  await page.waitForURL(`${stack.gatewayUrl}/account`);
  expect(await loggedIn(page)).toBe(true);

  const before = posted;
  const answer = page.waitForResponse((r) => r.url() === `${stack.gatewayUrl}/api/logout`);
  await page.goto(`http://${host}:${attackerPort}/`);
  const res = await answer;
  expect(posted).toBe(before + 1);
  expect(res.status()).toBe(403);
  expect(await res.json()).toMatchObject({ code: 'cross_site_request' });
  expect(await loggedIn(page)).toBe(true);
  await context.close();
});

test("the same browser logs out from the gateway's own page (the check lets the real thing through)", async () => {
  const { context, page } = await stack.newPage();
  await page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(page, 'alice', stack.accounts.alice.password);
  await page.waitForURL(`${stack.gatewayUrl}/account`);
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/login`);
  expect(await loggedIn(page)).toBe(false);
  await context.close();
});
