import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { isFocused, loginAtOidcServer, submitPassword } from './support/flows';
import { rawRequest } from '../support/http';
import { cardScreenshot, screenshotDir } from './support/screenshots';
import { GENERIC_NAME, startStack, type Stack } from './support/stack';

/**
 * The UI's pages one by one in Chromium, straight on the gateway (no proxy; the headers are
 * checked by test/contract/http/ui-pages.test.ts): accessibility, messages, the continue rules, and screenshots of every page in light, dark and phone width.
 * `npm run screenshots` sets SCREENSHOT_DIR=docs/screenshots; otherwise they go to a temp dir.
 */

const FORGOT = 'Passwords are reset by the IT desk.\nCall extension 4242 or write to it@example.test.';
const VARIANTS = [
  { name: 'light', colorScheme: 'light', width: 800, height: 640 },
  { name: 'dark', colorScheme: 'dark', width: 800, height: 640 },
  { name: 'phone-light', colorScheme: 'light', width: 390, height: 780 },
  { name: 'phone-dark', colorScheme: 'dark', width: 390, height: 780 },
] as const;

const OIDC_ACCOUNTS = {
  olivia: { email: 'olivia@example.test', email_verified: true, name: 'Olivia Oauth', preferred_username: 'olivia' },
  mallory: { email: 'mallory@evil.test', email_verified: true, name: 'Mallory', preferred_username: 'mallory' },
};

let stack: Stack;
let shots: string;

beforeAll(async () => {
  stack = await startStack({
    proxies: [],
    accounts: [
      { username: 'alice' },
      { username: 'bob', totp: true },
      { username: 'dave' },
      { username: 'kim' },
      ...VARIANTS.map((v) => ({ username: `carol-${v.name}` })),
    ],
    // GitHub is configured for its button only: no test follows it off this machine.
    env: {
      FORGOT_PASSWORD_MESSAGE: FORGOT,
      LOGIN_MAX_RETRIES: '3',
      LOGIN_TIMEOUT: '300',
      GITHUB_CLIENT_ID: 'e2e-github-id',
      GITHUB_CLIENT_SECRET: 'e2e-github-secret',
    },
    oidcAccounts: OIDC_ACCOUNTS,
  });
  shots = screenshotDir(stack);
});

afterAll(async () => {
  await stack?.stop();
});

const heading = (page: Page): Promise<string | null> => page.getByRole('heading', { level: 1 }).textContent();

async function loggedIn(username: string, options: Parameters<Stack['newPage']>[0] = {}): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const opened = await stack.newPage(options);
  await opened.page.goto(`${stack.gatewayUrl}/login`);
  const account = stack.accounts[username];
  await submitPassword(opened.page, account.username, account.password);
  await opened.page.waitForURL(`${stack.gatewayUrl}/account`);
  return opened;
}

describe('served pages', () => {
  test('an unknown page is the not-found page with a 404 status', async () => {
    const res = await rawRequest(stack.gatewayPort, `auth.example.test:${stack.gatewayPort}`, '/no/such/page', { accept: 'text/html' });
    expect(res.status).toBe(404);
    const { context, page, problems } = await stack.newPage();
    await page.goto(`${stack.gatewayUrl}/no/such/page`);
    await expect(heading(page)).resolves.toBe('Page not found');
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('using the pages', () => {
  test('a keyboard-only person can log in: Tab goes from the e-mail field to the password, the button and the forgot link, and Enter submits', async () => {
    const { context, page, problems } = await stack.newPage();
    const target = `${stack.echoUrl}/keyboard`;
    await page.goto(`${stack.gatewayUrl}/login?redirect_uri=${encodeURIComponent(target)}`);
    const email = page.getByLabel('Username or e-mail');
    await expect(isFocused(email)).resolves.toBe(true);
    await page.keyboard.type('kim@example.test');
    await page.keyboard.press('Tab');
    await expect(isFocused(page.getByLabel('Password'))).resolves.toBe(true);
    await page.keyboard.type(stack.accounts.kim.password);
    await page.keyboard.press('Tab');
    await expect(isFocused(page.getByRole('button', { name: 'Log in' }))).resolves.toBe(true);
    await page.keyboard.press('Tab');
    await expect(isFocused(page.getByRole('link', { name: 'Forgot your password?' }))).resolves.toBe(true);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${stack.gatewayUrl}/continue?**`);
    await expect(isFocused(page.getByRole('link', { name: 'Continue' }))).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await page.waitForURL(target);
    expect(problems).toEqual([]);
    await context.close();
  });

  test("configured OAuth providers get a button each, the generic one labelled with genericName, and a click goes to the provider's login", async () => {
    const { context, page, problems } = await stack.newPage();
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/oauth/url/')) asked.push(r.url());
    });
    const target = `${stack.echoUrl}/after-oauth`;
    await page.goto(`${stack.gatewayUrl}/login?redirect_uri=${encodeURIComponent(target)}`);
    const buttons = page.locator('.oauth-list button');
    await buttons.first().waitFor();
    await expect(buttons.allTextContents()).resolves.toEqual(['Continue with GitHub', `Continue with ${GENERIC_NAME}`]);
    await expect(page.getByLabel('Username or e-mail').count()).resolves.toBe(1);
    expect(problems).toEqual([]); // ours; the provider's own page is not
    await page.getByRole('button', { name: `Continue with ${GENERIC_NAME}` }).click();
    await page.waitForURL(`${stack.oidcIssuer}/interaction/**`);
    expect(asked).toEqual([`${stack.gatewayUrl}/api/oauth/url/generic?redirect_uri=${encodeURIComponent(target)}`]);
    await context.close();
  });

  test('an OAuth account outside OAUTH_WHITELIST lands on the access-denied page, which says why', async () => {
    const { context, page } = await stack.newPage();
    await page.goto(`${stack.gatewayUrl}/login?redirect_uri=${encodeURIComponent(`${stack.echoUrl}/x`)}`);
    await page.getByRole('button', { name: `Continue with ${GENERIC_NAME}` }).click();
    await loginAtOidcServer(page, stack.oidcIssuer ?? '', 'mallory');
    await page.waitForURL(`${stack.gatewayUrl}/unauthorized?**`);
    await expect(heading(page)).resolves.toBe('Access denied');
    await expect(page.locator('.reason').textContent()).resolves.toBe('This account is not on the list of accounts allowed to log in here.');
    expect(new URL(page.url()).searchParams.get('username')).toBe('mallory@evil.test');
    await expect(page.locator('.lead').textContent()).resolves.toBe('The account mallory@evil.test is not allowed to use this application.');
    await context.close();
  });

  test('the continue page refuses a target off the cookie domain and shows why', async () => {
    const { context, page } = await loggedIn('alice');
    await page.goto(`${stack.gatewayUrl}/continue?redirect_uri=${encodeURIComponent('https://example.test.evil.test/steal')}`);
    await expect(heading(page)).resolves.toBe('Cannot continue');
    await expect(page.locator('p').first().textContent()).resolves.toContain('outside the sites this login protects');
    await expect(page.getByRole('link', { name: 'Continue' }).count()).resolves.toBe(0);
    await context.close();
  });

  test('the continue page refuses a target that is not http or https', async () => {
    const { context, page } = await loggedIn('alice');
    await page.goto(`${stack.gatewayUrl}/continue?redirect_uri=${encodeURIComponent('javascript:alert(document.cookie)')}`);
    await expect(heading(page)).resolves.toBe('Cannot continue');
    await expect(page.getByText('not an http or https address', { exact: false }).count()).resolves.toBe(1);
    await context.close();
  });

  test('after too many wrong passwords the login page says the account is locked and how long to wait', async () => {
    const { context, page } = await stack.newPage();
    await page.goto(`${stack.gatewayUrl}/login`);
    const alert = page.getByRole('alert');
    for (let i = 0; i < 3; i += 1) {
      await submitPassword(page, 'dave', `wrong-${i}`);
      await expect(alert.textContent()).resolves.toBe('Wrong username or password. Check both and try again.');
    }
    await submitPassword(page, 'dave', stack.accounts.dave.password);
    await page.waitForFunction(
      () =>
        (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document
          .querySelector('[role=alert]')
          ?.textContent?.startsWith('Too many') === true,
    );
    await expect(alert.textContent()).resolves.toBe('Too many failed login attempts. Try again in 5 minutes.');
    await context.close();
  });

  test('the forgot-password page shows the configured message and leads back to the login with the redirect', async () => {
    const { context, page } = await stack.newPage();
    const target = `${stack.echoUrl}/x`;
    await page.goto(`${stack.gatewayUrl}/login?redirect_uri=${encodeURIComponent(target)}`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(`${stack.gatewayUrl}/forgot-password?**`);
    await expect(page.locator('.message').textContent()).resolves.toBe(FORGOT);
    await page.getByRole('link', { name: 'Back to login' }).click();
    await page.waitForURL(`${stack.gatewayUrl}/login?**`);
    expect(new URL(page.url()).searchParams.get('redirect_uri')).toBe(target);
    await context.close();
  });

  test('the unauthorized page names the account and the resource from its query, as text', async () => {
    const { context, page } = await stack.newPage();
    await page.goto(`${stack.gatewayUrl}/unauthorized?resource=grafana.example.test&username=${encodeURIComponent('<b>eve</b>')}`);
    await expect(heading(page)).resolves.toBe('Access denied');
    await expect(page.locator('.lead').textContent()).resolves.toBe('The account <b>eve</b> is not allowed to use grafana.example.test.');
    await context.close();
  });

  test('the unauthorized page shows a username carrying a script or HTML as text, and runs nothing', async () => {
    const { context, page, problems } = await stack.newPage();
    const hostile = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">@evil.test';
    await page.goto(`${stack.gatewayUrl}/unauthorized?reason=not_whitelisted&username=${encodeURIComponent(hostile)}`);
    await expect(heading(page)).resolves.toBe('Access denied');
    await expect(page.locator('.lead strong').textContent()).resolves.toBe(hostile);
    await expect(page.locator('#app script, .lead img').count()).resolves.toBe(0);
    await expect(page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
    expect(problems).toEqual([]);
    await context.close();
  });

  test('the error page explains a known reason code and shows an unknown reason as text', async () => {
    const { context, page } = await stack.newPage();
    await page.goto(`${stack.gatewayUrl}/error?reason=provider_denied`);
    await expect(heading(page)).resolves.toBe('Something went wrong');
    await expect(page.locator('.reason').textContent()).resolves.toBe('The provider did not grant the login (it was cancelled or refused there).');
    await page.goto(`${stack.gatewayUrl}/error?reason=${encodeURIComponent('<i>odd</i> failure')}`);
    await expect(page.locator('.reason').textContent()).resolves.toBe('<i>odd</i> failure');
    await context.close();
  });
});

/** Desktop shots are cut to the card with a margin (small files); phone shots keep the whole screen. */
async function screenshot(page: Page, name: string, phone: boolean): Promise<void> {
  const path = join(shots, `${name}.png`);
  if (!phone) return cardScreenshot(page, path);
  await page.mouse.move(0, 0);
  await page.screenshot({ path, animations: 'disabled', caret: 'hide', fullPage: false });
}

describe('screenshots', () => {
  test.each(VARIANTS)('every page renders its heading without console errors in the $name variant', async (variant) => {
    const options = { colorScheme: variant.colorScheme, width: variant.width, height: variant.height } as const;
    // Never followed here: a fixed address keeps the screenshots the same from run to run.
    const target = 'https://grafana.example.test/d/overview';
    const phone = variant.width < 500;
    const anon = await stack.newPage(options);
    const p = anon.page;
    const expectations: [string, string, string][] = [
      ['login', `/login?redirect_uri=${encodeURIComponent(target)}`, 'Log in'],
      ['forgot-password', '/forgot-password', 'Forgot your password?'],
      ['unauthorized', '/unauthorized?resource=grafana.example.test&username=alice', 'Access denied'],
      ['error', '/error?reason=oauth_flow_expired', 'Something went wrong'],
      ['not-found', '/settings/nowhere', 'Page not found'],
    ];
    for (const [name, path, title] of expectations) {
      await p.goto(`${stack.gatewayUrl}${path}`);
      await expect(heading(p)).resolves.toBe(title);
      await screenshot(p, `${name}-${variant.name}`, phone);
    }

    await p.goto(`${stack.gatewayUrl}/login?redirect_uri=${encodeURIComponent(target)}`);
    await submitPassword(p, `carol-${variant.name}`, 'not-the-password');
    await expect(p.getByRole('alert').textContent()).resolves.toContain('Wrong username or password');
    await p.getByLabel('Username or e-mail').blur();
    await screenshot(p, `login-wrong-password-${variant.name}`, phone);

    await p.goto(`${stack.gatewayUrl}/login?redirect_uri=${encodeURIComponent(target)}`);
    await submitPassword(p, 'bob', stack.accounts.bob.password);
    await p.waitForURL(`${stack.gatewayUrl}/totp?**`);
    await expect(heading(p)).resolves.toBe('Enter your code');
    await screenshot(p, `totp-${variant.name}`, phone);
    expect(anon.problems).toEqual([]);
    await anon.context.close();

    const user = await loggedIn('alice', options);
    await user.page.goto(`${stack.gatewayUrl}/continue?redirect_uri=${encodeURIComponent(target)}`);
    await expect(heading(user.page)).resolves.toBe('You are logged in');
    await screenshot(user.page, `continue-${variant.name}`, phone);
    await user.page.goto(`${stack.gatewayUrl}/account`);
    await expect(heading(user.page)).resolves.toBe('Your account');
    await screenshot(user.page, `logout-${variant.name}`, phone);
    expect(user.problems).toEqual([]);
    await user.context.close();
  });
});

describe('with DISABLE_CONTINUE and OAUTH_AUTO_REDIRECT=generic', () => {
  let auto: Stack;
  beforeAll(async () => {
    auto = await startStack({
      proxies: [],
      accounts: [{ username: 'alice' }],
      env: { DISABLE_CONTINUE: 'true', OAUTH_AUTO_REDIRECT: 'generic' },
      oidcAccounts: OIDC_ACCOUNTS,
    });
  });
  afterAll(async () => {
    await auto?.stop();
  });

  test('the continue page goes on to the target by itself', async () => {
    const { context, page } = await auto.newPage();
    await page.goto(`${auto.gatewayUrl}/login`);
    await submitPassword(page, 'alice', auto.accounts.alice.password);
    await page.waitForURL(`${auto.gatewayUrl}/account`);
    const target = `${auto.echoUrl}/straight-through`;
    await page.goto(`${auto.gatewayUrl}/continue?redirect_uri=${encodeURIComponent(target)}`);
    await page.waitForURL(target);
    await expect(page.locator('#where').textContent()).resolves.toContain('/straight-through');
    await context.close();
  });

  test('a visit with a redirect_uri goes straight to the provider and, once logged in there, back to the target', async () => {
    const { context, page } = await auto.newPage();
    const target = `${auto.echoUrl}/auto-oauth`;
    await page.goto(`${auto.gatewayUrl}/login?redirect_uri=${encodeURIComponent(target)}`);
    await loginAtOidcServer(page, auto.oidcIssuer ?? '', 'olivia');
    await page.waitForURL(target);
    await context.close();
  });

  test('a direct visit to /login still shows the login page', async () => {
    const { context, page } = await auto.newPage();
    await page.goto(`${auto.gatewayUrl}/login`);
    await expect(heading(page)).resolves.toBe('Log in');
    await expect(page.getByRole('button', { name: `Continue with ${GENERIC_NAME}` }).count()).resolves.toBe(1);
    expect(page.url()).toBe(`${auto.gatewayUrl}/login`);
    await context.close();
  });
});
