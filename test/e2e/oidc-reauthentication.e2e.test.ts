import { chromium, type Browser, type Page } from 'playwright-core';
import * as client from 'openid-client';
import { createServer, type Server } from 'node:http';
import { APP_SECRET, discoverClient, OIDC_PEOPLE, pkceAuthorization, startOidcGateway } from '../support/oidc-gateway';
import { freePort } from '../support/net';
import type { RunningGateway } from '../support/server';
import { submitPassword } from './support/flows';

/**
 * `prompt=login` in a real browser: the gateway's login page shows its form although the person
 * has a live session, and the new login goes back to the relying party with a fresh auth_time.
 */
describe('OpenID Connect prompt=login in Chromium', () => {
  let gw: RunningGateway;
  let app: client.Configuration;
  let browser: Browser;
  let rp: Server;
  let CALLBACK: string;
  beforeAll(async () => {
    // A real page at the callback (on loopback): Chromium does not let a route answer a URL reached by a redirect.
    const port = await freePort();
    rp = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('callback'));
    await new Promise<void>((resolve) => rp.listen(port, '127.0.0.1', resolve));
    CALLBACK = `http://127.0.0.1:${port}/callback`;
    gw = await startOidcGateway({ OIDC_CLIENTS_APP_CLIENT_ID: 'app', OIDC_CLIENTS_APP_CLIENT_SECRET: APP_SECRET, OIDC_CLIENTS_APP_REDIRECT_URIS: CALLBACK });
    app = await discoverClient(gw.url, 'app', APP_SECRET);
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true });
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
    await new Promise((resolve) => rp?.close(resolve));
  });

  /** Runs an authorization in `page` until the relying party's callback, which the test answers itself. */
  async function authorize(page: Page, params: Record<string, string>, login?: () => Promise<void>): Promise<URL> {
    const { url } = await pkceAuthorization(app, CALLBACK, params);
    await page.goto(url.toString());
    if (login !== undefined) await login();
    // Until the callback page has loaded: a next navigation started earlier would abort it.
    await page.waitForURL((u) => u.href.startsWith(`${CALLBACK}?`), { waitUntil: 'load' });
    return new URL(page.url());
  }

  it('asks a logged-in person to log in again, then returns to the application with a code', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });

    const first = await authorize(page, {}, async () => {
      await page.waitForURL(`${gw.url}/login?**`);
      await submitPassword(page, 'alice', OIDC_PEOPLE.alice.password);
    });
    expect(first.searchParams.get('code')).toEqual(expect.any(String));

    const again = await authorize(page, { prompt: 'login' }, async () => {
      await page.waitForURL(`${gw.url}/login?**`);
      expect(new URL(page.url()).searchParams.get('prompt')).toBe('login');
      await expect(page.getByText('The application asks you to log in again.').isVisible()).resolves.toBe(true);
      await submitPassword(page, 'alice', OIDC_PEOPLE.alice.password);
    });
    expect(again.searchParams.get('code')).toEqual(expect.any(String));
    expect(problems).toEqual([]);
    await context.close();
  });
});
