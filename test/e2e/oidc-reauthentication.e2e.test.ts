import { chromium, type Browser, type Page } from 'playwright-core';
import * as client from 'openid-client';
import { APP_CLIENT_ENV, APP_SECRET, CALLBACK, discoverClient, OIDC_PEOPLE, pkceAuthorization, startOidcGateway } from '../support/oidc-gateway';
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
  beforeAll(async () => {
    gw = await startOidcGateway(APP_CLIENT_ENV);
    app = await discoverClient(gw.url, 'app', APP_SECRET);
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true });
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  /** Runs an authorization in `page` until the relying party's callback, which the test answers itself. */
  async function authorize(page: Page, params: Record<string, string>, login?: () => Promise<void>): Promise<URL> {
    const { url } = await pkceAuthorization(app, CALLBACK, params);
    const back = page.waitForRequest((r) => r.url().startsWith(`${CALLBACK}?`));
    await page.goto(url.toString());
    if (login !== undefined) await login();
    return new URL((await back).url());
  }

  it('asks a logged-in person to log in again, then returns to the application with a code', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    await context.route(`${CALLBACK}?**`, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback' }));
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
