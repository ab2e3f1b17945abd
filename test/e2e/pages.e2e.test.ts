import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { isFocused, submitPassword } from './support/flows';
import { rawRequest } from './support/processes';
import { startStack, type Stack } from './support/stack';

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
    env: { FORGOT_PASSWORD_MESSAGE: FORGOT, LOGIN_MAX_RETRIES: '3', LOGIN_TIMEOUT: '300' },
  });
  shots = process.env.SCREENSHOT_DIR !== undefined ? resolve(process.env.SCREENSHOT_DIR) : join(stack.dir, 'screenshots');
  mkdirSync(shots, { recursive: true });
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
  await opened.page.waitForURL(`${stack.gatewayUrl}/logout`);
  return opened;
}


/**
 * Until the OAuth backend is on main, the browser's view of it is stubbed: `/api/app` is the
 * gateway's real answer with OAuth providers added, and `/api/oauth/url/:provider` answers a URL
 * on the echo app, standing in for the provider. `asked` records the URLs the page requested.
 */
async function withOAuthProviders(page: Page, autoRedirect = 'none'): Promise<string[]> {
  const asked: string[] = [];
  // Playwright's own fetch would not know the .example.test host mapping: ask over loopback.
  const real = JSON.parse((await rawRequest(stack.gatewayPort, `auth.example.test:${stack.gatewayPort}`, '/api/app')).body) as Record<string, unknown>;
  await page.route('**/api/app', async (route) => {
    await route.fulfill({
      json: { ...real, genericName: 'Example SSO', oauthAutoRedirect: autoRedirect, configuredProviders: ['github', 'generic', 'username'] },
    });
  });
  await page.route('**/api/oauth/url/*', async (route) => {
    asked.push(route.request().url());
    await route.fulfill({ json: { status: 200, message: 'OK', url: `${stack.echoUrl}/authorize?client_id=portcullis` } });
  });
  return asked;
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

  test('configured OAuth providers get a button each, the generic one labelled with genericName, and a click goes to the URL the gateway gives', async () => {
    const { context, page, problems } = await stack.newPage();
    const asked = await withOAuthProviders(page);
    const target = `${stack.echoUrl}/after-oauth`;
    await page.goto(`${stack.gatewayUrl}/login?redirect_uri=${encodeURIComponent(target)}`);
    const buttons = page.locator('.oauth-list button');
    await buttons.first().waitFor();
    await expect(buttons.allTextContents()).resolves.toEqual(['Continue with GitHub', 'Continue with Example SSO']);
    await expect(page.getByLabel('Username or e-mail').count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Continue with Example SSO' }).click();
    await page.waitForURL(`${stack.echoUrl}/authorize?client_id=portcullis`);
    expect(asked).toEqual([`${stack.gatewayUrl}/api/oauth/url/generic?redirect_uri=${encodeURIComponent(target)}`]);
    expect(problems).toEqual([]);
    await context.close();
  });

  test('oauthAutoRedirect goes straight to the provider when a redirect_uri is present, and a direct visit still shows the page', async () => {
    const { context, page } = await stack.newPage();
    const asked = await withOAuthProviders(page, 'generic');
    await page.goto(`${stack.gatewayUrl}/login`);
    await expect(heading(page)).resolves.toBe('Log in');
    expect(asked).toEqual([]);
    await page.goto(`${stack.gatewayUrl}/login?redirect_uri=${encodeURIComponent(`${stack.echoUrl}/auto`)}`);
    await page.waitForURL(`${stack.echoUrl}/authorize?client_id=portcullis`);
    expect(asked).toHaveLength(1);
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
    await page.waitForFunction(() => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document.querySelector('[role=alert]')?.textContent?.startsWith('Too many') === true);
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

  test('the error page shows the reason from its query', async () => {
    const { context, page } = await stack.newPage();
    await page.goto(`${stack.gatewayUrl}/error?reason=${encodeURIComponent('The provider refused the login')}`);
    await expect(heading(page)).resolves.toBe('Something went wrong');
    await expect(page.locator('.reason').textContent()).resolves.toBe('Reason: The provider refused the login');
    await context.close();
  });
});

/** Desktop shots are cut to the card with a margin (small files); phone shots keep the whole screen. */
async function screenshot(page: Page, name: string, phone: boolean): Promise<void> {
  await page.mouse.move(0, 0);
  let clip: { x: number; y: number; width: number; height: number } | undefined;
  if (!phone) {
    const box = await page.locator('.shell').evaluate((el) => {
      const card = el.querySelector('.card')?.getBoundingClientRect();
      const note = el.querySelector('.footnote')?.getBoundingClientRect();
      return card && note ? { x: card.left, y: card.top, right: card.right, bottom: note.bottom } : null;
    });
    if (box === null) throw new Error('no card on the page');
    const margin = 32;
    clip = { x: box.x - margin, y: box.y - margin, width: box.right - box.x + 2 * margin, height: box.bottom - box.y + 2 * margin };
  }
  await page.screenshot({ path: join(shots, `${name}.png`), animations: 'disabled', caret: 'hide', clip, fullPage: clip !== undefined });
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
      ['error', `/error?reason=${encodeURIComponent('The provider refused the login (access_denied)')}`, 'Something went wrong'],
      ['not-found', '/settings/nowhere', 'Page not found'],
    ];
    for (const [name, path, title] of expectations) {
      await p.goto(`${stack.gatewayUrl}${path}`);
      await expect(heading(p)).resolves.toBe(title);
      await screenshot(p, `${name}-${variant.name}`, phone);
    }

    const oauth = await stack.newPage(options);
    await withOAuthProviders(oauth.page);
    await oauth.page.goto(`${stack.gatewayUrl}/login?redirect_uri=${encodeURIComponent(target)}`);
    await oauth.page.locator('.oauth-list button').first().waitFor();
    await expect(oauth.page.locator('.oauth-list button').count()).resolves.toBe(2);
    await screenshot(oauth.page, `login-oauth-${variant.name}`, phone);
    await oauth.context.close();

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
    await user.page.goto(`${stack.gatewayUrl}/logout`);
    await expect(heading(user.page)).resolves.toBe('Your account');
    await screenshot(user.page, `logout-${variant.name}`, phone);
    expect(user.problems).toEqual([]);
    await user.context.close();
  });
});

describe('with DISABLE_CONTINUE', () => {
  let auto: Stack;
  beforeAll(async () => {
    auto = await startStack({ proxies: [], accounts: [{ username: 'alice' }], env: { DISABLE_CONTINUE: 'true' } });
  });
  afterAll(async () => {
    await auto?.stop();
  });

  test('a finished login goes on to the target without the continue button', async () => {
    const { context, page } = await auto.newPage();
    const target = `${auto.echoUrl}/straight-through`;
    await page.goto(`${auto.gatewayUrl}/login?redirect_uri=${encodeURIComponent(target)}`);
    await submitPassword(page, 'alice', auto.accounts.alice.password);
    await page.waitForURL(target);
    await expect(page.locator('#where').textContent()).resolves.toContain('/straight-through');
    await context.close();
  });
});
