import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { freePort } from '../support/net';
import { relyingPartyRedirectUri, startApacheRelyingParty, startLoopbackProxy, type RelyingParty } from './support/apache';
import { echoed, submitPassword, totpCode } from './support/flows';
import { startStack, type Stack } from './support/stack';

/**
 * One login for OpenID Connect applications and forward-auth applications, in Chromium: Apache
 * with mod_auth_openidc (Debian's packages) protects a page on two virtual hosts, each its own
 * client of the gateway's provider (OIDC_CLIENTS_RP1_*, OIDC_CLIENTS_RP2_*), and the echo app sits
 * behind real nginx with forward auth. A person logs in once through the gateway's UI (password,
 * then TOTP) and reaches all three without typing again.
 */
let stack: Stack;
let rp: RelyingParty;
let closeProxy: () => Promise<void> = async () => undefined;
/** Issue 35: the front-channel logout page of RP2, recording each load (its query). */
const frontchannelHits: URLSearchParams[] = [];
let frontchannel: Server | null = null;

const RP1 = { host: 'rp1.example.test', clientId: 'apache-rp1', clientSecret: 'apache-rp1-secret-0123456789-0123456789' };
const RP2 = { host: 'rp2.example.test', clientId: 'apache-rp2', clientSecret: 'apache-rp2-secret-0123456789-0123456789' };

beforeAll(async () => {
  const rpPort = await freePort();
  const frontPort = await freePort();
  frontchannel = createServer((req, res) => {
    frontchannelHits.push(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
    res.setHeader('content-type', 'text/html');
    res.end('<!DOCTYPE html><title>signed out</title>');
  });
  await new Promise<void>((resolve) => frontchannel?.listen(frontPort, '127.0.0.1', resolve));
  stack = await startStack({
    proxies: ['nginx'],
    accounts: [{ username: 'tess', totp: true }, { username: 'una' }],
    env: {
      OIDC_CLIENTS_RP1_CLIENT_ID: RP1.clientId,
      OIDC_CLIENTS_RP1_CLIENT_SECRET: RP1.clientSecret,
      OIDC_CLIENTS_RP1_REDIRECT_URIS: relyingPartyRedirectUri(RP1.host, rpPort),
      OIDC_CLIENTS_RP1_NAME: 'Apache one',
      // Issue 35: mod_auth_openidc takes back-channel logout at its redirect URI with ?logout=backchannel.
      // Sent to 127.0.0.1 (the names do not resolve): Apache's first virtual host is RP1's.
      OIDC_CLIENTS_RP1_BACKCHANNEL_LOGOUT_URI: `http://127.0.0.1:${rpPort}/protected/redirect_uri?logout=backchannel`,
      OIDC_CLIENTS_RP2_CLIENT_ID: RP2.clientId,
      OIDC_CLIENTS_RP2_CLIENT_SECRET: RP2.clientSecret,
      OIDC_CLIENTS_RP2_REDIRECT_URIS: relyingPartyRedirectUri(RP2.host, rpPort),
      OIDC_CLIENTS_RP2_NAME: 'Apache two',
      OIDC_CLIENTS_RP2_FRONTCHANNEL_LOGOUT_URI: `http://127.0.0.1:${frontPort}/frontchannel-logout`,
    },
  });
  const proxy = await startLoopbackProxy();
  closeProxy = proxy.close;
  rp = await startApacheRelyingParty(join(stack.dir, 'apache'), {
    issuer: stack.gatewayUrl,
    port: rpPort,
    sites: [RP1, RP2],
    outgoingProxy: `127.0.0.1:${proxy.port}`,
  });
});

afterAll(async () => {
  await rp?.stop();
  await closeProxy();
  await stack?.stop();
  frontchannel?.closeAllConnections();
  await new Promise<void>((resolve) => (frontchannel === null ? resolve() : frontchannel.close(() => resolve())));
});

/** What the Apache page shows of the identity mod_auth_openidc established. */
async function rpIdentity(page: Page): Promise<{ host: string; user: string; email: string }> {
  return {
    host: (await page.locator('#host').textContent()) ?? '',
    user: (await page.locator('#remote-user').textContent()) ?? '',
    email: (await page.locator('#email').textContent()) ?? '',
  };
}

test('logs in once through the gateway (password, then TOTP) for an Apache relying party, then single sign-on into a second client and a forward-auth app', async () => {
  const tess = stack.accounts.tess;
  const { context, page, problems } = await stack.newPage();

  // 1. The relying party sends the browser to the gateway's provider, which shows the gateway's own login page.
  await page.goto(rp.protectedUrl(RP1.host));
  await page.waitForURL(`${stack.gatewayUrl}/login**`);
  await submitPassword(page, tess.username, tess.password);
  await page.waitForURL(`${stack.gatewayUrl}/totp**`);
  await page.getByLabel('One-time code').fill(await totpCode(tess));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL(rp.protectedUrl(RP1.host));
  const first = await rpIdentity(page);
  expect(first.host).toBe(RP1.host);
  // REMOTE_USER is the provider's `sub`: opaque, stable, not the username or the e-mail.
  expect(first.user).toMatch(/^[A-Za-z0-9_-]{43}$/);

  // 2. The second client: the gateway session answers at once, no login page, no typing.
  const seen: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) seen.push(frame.url());
  });
  await page.goto(rp.protectedUrl(RP2.host));
  await page.waitForURL(rp.protectedUrl(RP2.host));
  const second = await rpIdentity(page);
  expect(second.host).toBe(RP2.host);
  expect(second.user).toBe(first.user);
  expect(seen.some((u) => u.startsWith(`${stack.gatewayUrl}/login`) || u.startsWith(`${stack.gatewayUrl}/totp`))).toBe(false);

  // 3. The forward-auth application behind nginx: the same login, no typing.
  const site = stack.sites.nginx!;
  await page.goto(`${site.url}/after-oidc`);
  await page.waitForURL(`${site.url}/after-oidc`);
  await expect(echoed(page, 'remote-user')).resolves.toBe(tess.username);

  expect(problems).toEqual([]);
  await context.close();
});

test('a login at a forward-auth application covers the OpenID Connect clients too', async () => {
  const una = stack.accounts.una;
  const { context, page } = await stack.newPage();
  const site = stack.sites.nginx!;
  await page.goto(`${site.url}/first`);
  await page.waitForURL(`${stack.gatewayUrl}/login**`);
  await submitPassword(page, una.username, una.password);
  // A forward-auth login ends on the continue page (plain http here); an OIDC login does not.
  await page.waitForURL(`${stack.gatewayUrl}/continue?**`);
  await page.getByRole('link', { name: 'Continue' }).click();
  await page.waitForURL(`${site.url}/first`);
  await expect(echoed(page, 'remote-user')).resolves.toBe(una.username);

  await page.goto(rp.protectedUrl(RP1.host));
  await page.waitForURL(rp.protectedUrl(RP1.host));
  expect((await rpIdentity(page)).user).toMatch(/^[A-Za-z0-9_-]{43}$/);
  await context.close();
});

test('a logout on the gateway reaches mod_auth_openidc over the back channel: its page asks for a new login', async () => {
  const una = stack.accounts.una;
  const { context, page } = await stack.newPage();
  await page.goto(rp.protectedUrl(RP1.host));
  await page.waitForURL(`${stack.gatewayUrl}/login**`);
  await submitPassword(page, una.username, una.password);
  await page.waitForURL(rp.protectedUrl(RP1.host));
  expect((await rpIdentity(page)).host).toBe(RP1.host);

  // The gateway's own logout, from its page (the browser resolves the test names; the API client does not).
  await page.goto(`${stack.gatewayUrl}/account`);
  const loggedOut = await page.evaluate(async () => (await fetch('/api/logout', { method: 'POST' })).status);
  expect(loggedOut).toBe(200);
  // The token is delivered off the logout's path: give it a moment, then the app's own session is gone.
  const deadline = Date.now() + 10_000;
  for (;;) {
    await page.goto(rp.protectedUrl(RP1.host));
    if (page.url().startsWith(`${stack.gatewayUrl}/login`)) break;
    if (Date.now() > deadline) throw new Error(`still at ${page.url()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  await page.waitForURL(`${stack.gatewayUrl}/login**`);
  await context.close();
});

test("the gateway's logout button loads RP2's front-channel logout page in a hidden frame, with iss and sid, then shows the login page", async () => {
  const una = stack.accounts.una;
  const { context, page } = await stack.newPage();
  await page.goto(rp.protectedUrl(RP2.host));
  await page.waitForURL(`${stack.gatewayUrl}/login**`);
  await submitPassword(page, una.username, una.password);
  await page.waitForURL(rp.protectedUrl(RP2.host));
  const before = frontchannelHits.length;

  await page.goto(`${stack.gatewayUrl}/account`);
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/login**`);
  const hits = frontchannelHits.slice(before);
  expect(hits).toHaveLength(1);
  expect(hits[0].get('iss')).toBe(stack.gatewayUrl);
  expect(hits[0].get('sid')).toMatch(/^[A-Za-z0-9_-]{10,}$/);
  await context.close();
});
