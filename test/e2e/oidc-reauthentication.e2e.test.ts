import { chromium, type Browser, type Page } from 'playwright-core';
import * as client from 'openid-client';
import { createServer, type Server } from 'node:http';
import { APP_SECRET, discoverClient, OIDC_PEOPLE, pkceAuthorization, startOidcGateway } from '../support/oidc-gateway';
import { freePort } from '../support/net';
import type { RunningGateway } from '../support/server';
import { generate } from 'otplib';
import { TOTP_SECRET } from '../support/credentials';
import { submitPassword } from './support/flows';

/**
 * Re-authentication in a real browser: `prompt=login` shows the gateway's login form although the
 * person has a live session, and `max_age=0` (or any `max_age` older than the session's last proof)
 * goes to the step-up (issue 33); either goes back to the relying party with a fresh auth_time.
 */
describe('OpenID Connect re-authentication in Chromium', () => {
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

  /** Carol's TOTP code for the step `offset` steps from now (a code opens one step, never twice). */
  const carolCode = (offset: number): Promise<string> => generate({ secret: TOTP_SECRET, epoch: Math.floor(Date.now() / 1000) + offset * 30 });

  it('sends max_age=0 to the step-up page; a TOTP code there brings an ID token with the new auth_time and amr', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));

    const first = await authorize(page, {}, async () => {
      await page.waitForURL(`${gw.url}/login?**`);
      await submitPassword(page, 'carol', OIDC_PEOPLE.carol.password);
      await page.waitForURL(`${gw.url}/totp?**`);
      await page.getByLabel('One-time code').fill(await carolCode(0));
      await page.getByRole('button', { name: 'Verify' }).click();
    });
    expect(first.searchParams.get('code')).toEqual(expect.any(String));
    await new Promise((resolve) => setTimeout(resolve, 1100));

    const { url, verifier, state } = await pkceAuthorization(app, CALLBACK, { max_age: '0' });
    await page.goto(url.toString());
    await page.waitForURL(`${gw.url}/login?step_up=**`);
    // The step-up page forward auth uses: it asks only for a proof, never for the username again.
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe("Confirm it's you");
    await expect(page.getByLabel('Username or e-mail').count()).resolves.toBe(0);
    // max_age counts any proof: carol may give her password or a code.
    await expect(page.locator('#step-up-password-form').count()).resolves.toBe(1);
    const provedAt = Math.floor(Date.now() / 1000);
    // The next step's code: the login spent this step's, and a code is never taken twice.
    await page.getByLabel('One-time code').fill(await carolCode(1));
    await page.locator('#step-up-code-form').getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL((u) => u.href.startsWith(`${CALLBACK}?`), { waitUntil: 'load' });
    const tokens = await client.authorizationCodeGrant(app, new URL(page.url()), { pkceCodeVerifier: verifier, expectedState: state, maxAge: 0 });
    const claims = tokens.claims();
    expect(claims?.auth_time).toBeGreaterThanOrEqual(provedAt);
    expect(claims).toMatchObject({ preferred_username: 'carol', amr: ['pwd', 'otp', 'mfa'], acr: 'mfa' });
    expect(problems).toEqual([]);
    await context.close();
  });

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
