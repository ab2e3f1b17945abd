import type { BrowserContext, Page } from 'playwright-core';
import { submitPassword } from './support/flows';
import { startStack, type Account, type ProxyName, type Site, type Stack } from './support/stack';

/**
 * Issue 33: a session in use is renewed through the shipped proxy configurations, and "Keep me
 * signed in" on the real login page. SESSION_EXPIRY is its least (60 s): the renewal comes past
 * half of it, so the test waits 31 seconds once, for both proxies at the same time.
 */
const PROXIES: readonly ProxyName[] = ['nginx', 'caddy'];

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    proxies: PROXIES,
    accounts: [...PROXIES.map((p) => ({ username: `alice-${p}` })), { username: 'bob' }],
    env: { SESSION_EXPIRY: '60', SESSION_MAX_LIFETIME: '3600', REMEMBER_ME_EXPIRY: '600' },
  });
});

afterAll(async () => {
  await stack?.stop();
});

const siteOf = (proxy: ProxyName): Site => {
  const s = stack.sites[proxy];
  if (s === undefined) throw new Error(`${proxy} is not running`);
  return s;
};

async function loginThrough(page: Page, site: Site, account: Account, remember: boolean): Promise<void> {
  await page.goto(`${site.url}/`);
  await page.waitForURL(`${stack.gatewayUrl}/login?**`);
  if (remember) await page.getByLabel('Keep me signed in').check();
  await submitPassword(page, account.username, account.password);
  await page.waitForURL(`${stack.gatewayUrl}/continue?**`);
  await page.getByRole('link', { name: 'Continue' }).click();
  await page.waitForURL(`${site.url}/`);
}

async function sessionCookie(context: BrowserContext): Promise<{ value: string; expires: number }> {
  const cookie = (await context.cookies()).find((c) => c.name === 'portcullis-session');
  if (cookie === undefined) throw new Error('no session cookie');
  return { value: cookie.value, expires: cookie.expires };
}

test('"Keep me signed in" on the login page gives a cookie that lasts REMEMBER_ME_EXPIRY', async () => {
  const { context, page } = await stack.newPage();
  await loginThrough(page, siteOf('nginx'), stack.accounts.bob, true);
  const { expires } = await sessionCookie(context);
  expect(expires - Date.now() / 1000).toBeGreaterThan(500);
  await context.close();
});

test('a session used past half its life gets its new cookie through nginx and caddy', async () => {
  const pages = await Promise.all(
    PROXIES.map(async (proxy) => {
      const opened = await stack.newPage();
      await loginThrough(opened.page, siteOf(proxy), stack.accounts[`alice-${proxy}`], false);
      return { proxy, ...opened, before: await sessionCookie(opened.context) };
    }),
  );
  for (const { before } of pages) expect(before.expires - Date.now() / 1000).toBeLessThanOrEqual(60);
  await new Promise((resolve) => setTimeout(resolve, 31_000));
  for (const { proxy, context, page, before } of pages) {
    const res = await page.goto(`${siteOf(proxy).url}/after-renewal`);
    expect(res?.status()).toBe(200);
    expect(await res?.headerValue('set-cookie')).toMatch(/^portcullis-session=.*Max-Age=60/);
    const after = await sessionCookie(context);
    expect(after.value).not.toBe(before.value);
    expect(after.expires).toBeGreaterThan(before.expires + 25);
    // Still the same session: the account page lists one, this one.
    const account = (await (await page.goto(`${stack.gatewayUrl}/api/account`))?.json()) as { sessions: unknown[] };
    expect(account.sessions).toHaveLength(1);
    await context.close();
  }
}, 120_000);
