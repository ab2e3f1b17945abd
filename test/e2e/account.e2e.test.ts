import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { isFocused, loginUrlFor, submitPassword } from './support/flows';
import { screenshotDir, siteBehind } from './support/screenshots';
import { startStack, type Site, type Stack } from './support/stack';

/**
 * The account page in Chromium: two browsers (two contexts, each its own cookies) signed in to one
 * account, the list showing both, signing one out from the other (its next request, through nginx's
 * forward auth too, goes to the login page), "everywhere else" and "everywhere", keyboard only, and
 * screenshots (`npm run screenshots`-style: SCREENSHOT_DIR, else a temp dir).
 */

const VARIANTS = [
  { name: 'light', colorScheme: 'light', width: 800, height: 900 },
  { name: 'dark', colorScheme: 'dark', width: 800, height: 900 },
  { name: 'phone-light', colorScheme: 'light', width: 390, height: 900 },
] as const;

let stack: Stack;
let shots: string;

beforeAll(async () => {
  stack = await startStack({
    proxies: ['nginx'],
    accounts: [{ username: 'alice' }, { username: 'bob' }, { username: 'kim' }, ...VARIANTS.map((v) => ({ username: `shot-${v.name}` }))],
  });
  shots = screenshotDir(stack);
});
afterAll(async () => {
  await stack?.stop();
});

const site = (): Site => siteBehind(stack, 'nginx');

type Browser = { context: BrowserContext; page: Page; problems: string[] };

async function signedIn(username: string, options: Parameters<Stack['newPage']>[0] = {}): Promise<Browser> {
  const opened = await stack.newPage(options);
  await opened.page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(opened.page, username, stack.accounts[username].password);
  await opened.page.waitForURL(`${stack.gatewayUrl}/account`);
  await opened.page.locator('.sessions li').first().waitFor();
  return opened;
}

/** Whether a visit to the protected app gets through (true) or goes to the login page (false). */
async function reachesApp(page: Page, path: string): Promise<boolean> {
  const target = `${site().url}${path}`;
  await page.goto(target);
  await page.waitForURL((url) => url.href === target || url.href.startsWith(`${stack.gatewayUrl}/login`));
  return page.url() === target;
}

const sessionItems = (page: Page) => page.locator('.sessions li');

/** The page lists `n` sessions (it renders its list after fetching it: wait for that, then check). */
async function expectSessions(page: Page, n: number): Promise<void> {
  // Polled from here, not with a string predicate in the page: the page's CSP (script-src 'self')
  // refuses string evaluation, and Chromium reports that as a console error.
  const deadline = Date.now() + 10_000;
  while ((await sessionItems(page).count()) !== n && Date.now() < deadline) await page.waitForTimeout(50);
  await expect(sessionItems(page).count()).resolves.toBe(n);
}

test('both browsers are listed, this one marked, and signing the other out ends it at its next request, through forward auth too', async () => {
  const laptop = await signedIn('alice');
  const phone = await signedIn('alice');
  expect(await reachesApp(laptop.page, '/laptop-before')).toBe(true);
  await laptop.page.goto(`${stack.gatewayUrl}/account`);
  await expectSessions(laptop.page, 2);

  await phone.page.reload();
  await sessionItems(phone.page).nth(1).waitFor();
  await expectSessions(phone.page, 2);
  const current = phone.page.locator('.sessions li.current');
  await expect(current.count()).resolves.toBe(1);
  await expect(current.locator('h3').textContent()).resolves.toMatch(/^Chrome \d+ on Linux \(this session\)$/);
  await expect(phone.page.locator('#who-you-are').textContent()).resolves.toContain('Logged in withPassword');

  // From the phone, sign the laptop out.
  await phone.page.locator('.sessions li:not(.current)').getByRole('button', { name: 'Sign out' }).click();
  await expect(phone.page.getByRole('status').textContent()).resolves.toBe('Signed out 1 session');
  await expectSessions(phone.page, 1);
  await expect(isFocused(phone.page.locator('#sessions-heading'))).resolves.toBe(true);

  expect(await reachesApp(laptop.page, '/laptop-after')).toBe(false);
  expect(laptop.page.url()).toBe(loginUrlFor(stack.gatewayUrl, `${site().url}/laptop-after`));
  await laptop.page.goto(`${stack.gatewayUrl}/account`);
  await laptop.page.waitForURL(`${stack.gatewayUrl}/login`);
  expect(await reachesApp(phone.page, '/phone-after')).toBe(true);
  expect([...laptop.problems, ...phone.problems]).toEqual([]);
  await Promise.all([laptop.context.close(), phone.context.close()]);
});

test('"Sign out everywhere else" keeps this browser; "Sign out everywhere" ends them all and lands on the login page', async () => {
  const [a, b, c] = [await signedIn('bob'), await signedIn('bob'), await signedIn('bob')];
  await c.page.reload();
  await sessionItems(c.page).nth(2).waitFor();
  await expectSessions(c.page, 3);
  await c.page.getByRole('button', { name: 'Sign out everywhere else' }).click();
  await expect(c.page.getByRole('status').textContent()).resolves.toBe('Signed out 2 sessions');
  await expectSessions(c.page, 1);
  await expect(c.page.getByRole('button', { name: 'Sign out everywhere else' }).isHidden()).resolves.toBe(true);
  expect([await reachesApp(a.page, '/a'), await reachesApp(b.page, '/b'), await reachesApp(c.page, '/c')]).toEqual([false, false, true]);

  const d = await signedIn('bob');
  await c.page.goto(`${stack.gatewayUrl}/account`);
  await c.page.getByRole('button', { name: 'Sign out everywhere', exact: true }).click();
  await c.page.waitForURL(`${stack.gatewayUrl}/login`);
  expect([await reachesApp(c.page, '/c2'), await reachesApp(d.page, '/d2')]).toEqual([false, false]);
  await Promise.all([a, b, c, d].map((x) => x.context.close()));
});

test('keyboard only: Tab reaches each session’s Sign out button (described by its device), and Enter signs that session out', async () => {
  const other = await signedIn('kim');
  const me = await signedIn('kim');
  await me.page.reload();
  await sessionItems(me.page).nth(1).waitFor();
  await expect(isFocused(me.page.getByRole('button', { name: 'Log out' }))).resolves.toBe(true);
  const target = me.page.locator('.sessions li:not(.current) button');
  const describedBy = await target.getAttribute('aria-describedby');
  await expect(me.page.locator(`[id="${describedBy}"]`).textContent()).resolves.toMatch(/^Chrome \d+ on Linux$/);
  for (let i = 0; i < 10 && !(await isFocused(target)); i += 1) await me.page.keyboard.press('Tab');
  await expect(isFocused(target)).resolves.toBe(true);
  await me.page.keyboard.press('Enter');
  await expect(me.page.getByRole('status').textContent()).resolves.toBe('Signed out 1 session');
  await expect(isFocused(me.page.locator('#sessions-heading'))).resolves.toBe(true);
  expect(await reachesApp(other.page, '/kim')).toBe(false);
  // Every button has a name, and the sessions list is named by its heading.
  await expect(me.page.locator('button:not([aria-label])').evaluateAll((els) => els.filter((e) => (e.textContent ?? '').trim() === '').length)).resolves.toBe(
    0,
  );
  await expect(me.page.getByRole('list', { name: 'Where you are signed in' }).count()).resolves.toBe(1);
  expect(me.problems).toEqual([]);
  await Promise.all([other.context.close(), me.context.close()]);
});

test('the passkeys section is on the page and stays hidden where the browser offers no WebAuthn (plain http here)', async () => {
  // test/e2e/passkeys.e2e.test.ts shows it filled, in a browser that treats the gateway as secure.
  const me = await signedIn('kim');
  const section = me.page.locator('section#passkeys-section');
  await expect(section.count()).resolves.toBe(1);
  await expect(section.isHidden()).resolves.toBe(true);
  await me.context.close();
});

describe('screenshots', () => {
  test.each(VARIANTS)('the account page with two sessions, $name', async (variant) => {
    const options = { colorScheme: variant.colorScheme, width: variant.width, height: variant.height } as const;
    const other = await signedIn(`shot-${variant.name}`, options);
    const me = await signedIn(`shot-${variant.name}`, options);
    await me.page.reload();
    await sessionItems(me.page).nth(1).waitFor();
    await me.page.mouse.move(0, 0);
    await me.page.screenshot({ path: join(shots, `account-sessions-${variant.name}.png`), animations: 'disabled', caret: 'hide', fullPage: true });
    expect(me.problems).toEqual([]);
    await Promise.all([other.context.close(), me.context.close()]);
  });
});
