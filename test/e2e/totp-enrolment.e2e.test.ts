import { request } from 'node:http';
import { join } from 'node:path';
import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import { basic } from '../support/credentials';
import { isFocused, submitPassword } from './support/flows';
import { screenshotDir, siteBehind } from './support/screenshots';
import { startStack, type Site, type Stack } from './support/stack';
import { decodeQr } from './support/terminal-image';

/**
 * Setting up a TOTP code of one's own on the account page, in Chromium: the QR code decodes (zbarimg)
 * to the otpauth:// URI of the key shown as text, the first code turns it on, and from then on the
 * password alone opens nothing: the next login asks for the code, forward auth through nginx lets
 * the person in only after it, and HTTP Basic is refused. Keyboard only, and screenshots of the
 * set-up section (SCREENSHOT_DIR, else a temp dir).
 */

let stack: Stack;
let shots: string;

beforeAll(async () => {
  stack = await startStack({ proxies: ['nginx'], accounts: [{ username: 'tess' }, { username: 'shot-light' }, { username: 'shot-dark' }] });
  shots = screenshotDir(stack);
});
afterAll(async () => {
  await stack?.stop();
});

const site = (): Site => siteBehind(stack, 'nginx');

/** The status nginx answers a request for the app that carries only HTTP Basic credentials. */
function basicThroughNginx(username: string, password: string): Promise<number> {
  return new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: site().port,
        path: '/basic',
        headers: { host: `${site().host}:${site().port}`, authorization: basic(username, password), accept: 'application/json' },
      },
      (res) => {
        res.resume();
        done(res.statusCode ?? 0);
      },
    );
    req.on('error', fail);
    req.end();
  });
}

async function signedInAtAccount(username: string, options: Parameters<Stack['newPage']>[0] = {}) {
  const opened = await stack.newPage(options);
  await opened.page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(opened.page, username, stack.accounts[username].password);
  await opened.page.waitForURL(`${stack.gatewayUrl}/account`);
  await opened.page.locator('#totp-setup').waitFor();
  return opened;
}

/** Whether a visit to the protected app gets through (true) or goes to a login page (false). */
async function reachesApp(page: Page, path: string): Promise<boolean> {
  const target = `${site().url}${path}`;
  await page.goto(target);
  await page.waitForURL((url) => url.href === target || url.href.startsWith(`${stack.gatewayUrl}/`));
  return page.url() === target;
}

const code = (secret: string, ahead = 0): Promise<string> => generate({ secret, epoch: Math.floor(Date.now() / 1000) + ahead });

test('set up through the page with the keyboard, then the password alone opens nothing: login asks for the code, nginx lets in after it, Basic refused', async () => {
  const tess = stack.accounts.tess;
  expect(await basicThroughNginx(tess.username, tess.password)).toBe(200);
  const elsewhere = await signedInAtAccount('tess');
  const { context, page, problems } = await signedInAtAccount('tess');
  await page.reload();
  await page.locator('.sessions li').nth(1).waitFor();

  const setUp = page.locator('#totp-setup');
  await setUp.focus();
  await page.keyboard.press('Enter');
  const field = page.getByLabel('Code from your app');
  await field.waitFor();
  await expect(isFocused(field)).resolves.toBe(true);
  await expect(field.getAttribute('autocomplete')).resolves.toBe('one-time-code');

  const secret = (await page.locator('#totp-secret').getAttribute('data-secret')) ?? '';
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  const qr = join(stack.dir, 'totp-qr.png');
  await page.locator('.totp-qr-frame').screenshot({ path: qr });
  const uri = decodeQr(qr) ?? '';
  expect(uri).toMatch(/^otpauth:\/\/totp\//);
  expect(new URL(uri).searchParams.get('secret')).toBe(secret);

  // A wrong code first: refused, announced, focus back on the field.
  const right = await code(secret);
  await page.getByLabel('Your password').fill(tess.password);
  await field.fill(right === '000000' ? '111111' : '000000');
  await field.press('Enter');
  // The answer takes a password check: wait for the announcement rather than read it at once.
  await page.locator('#totp-alert', { hasText: 'That code is not right' }).waitFor();
  await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');

  await field.fill(right);
  await page.getByLabel('Your password').fill(tess.password);
  await field.press('Enter');
  await page.locator('#totp-enrolled').waitFor();
  await expect(page.locator('#totp-status').textContent()).resolves.toContain('Two-step code turned on');
  // The page's session list follows: the other session it showed was signed out.
  const deadline = Date.now() + 10_000;
  while ((await page.locator('.sessions li').count()) !== 1 && Date.now() < deadline) await page.waitForTimeout(50);
  await expect(page.locator('.sessions li').count()).resolves.toBe(1);
  // The re-issued session (second-factor verified) still reaches the app.
  expect(await reachesApp(page, '/after-setup')).toBe(true);
  expect(await basicThroughNginx(tess.username, tess.password)).not.toBe(200);

  // Sign out, then the next login asks for the code before nginx lets the person through.
  await page.goto(`${stack.gatewayUrl}/account`);
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/login**`);
  await page.goto(`${site().url}/after-logout`);
  await page.waitForURL(`${stack.gatewayUrl}/login?**`);
  await submitPassword(page, tess.username, tess.password);
  await page.waitForURL(`${stack.gatewayUrl}/totp?**`);
  expect(await reachesApp(page, '/password-only')).toBe(false);
  await page.goto(`${stack.gatewayUrl}/totp?redirect_uri=${encodeURIComponent(`${site().url}/with-code`)}`);
  await page.getByLabel('One-time code').fill(await code(secret, 30));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/continue?**`);
  await page.getByRole('link', { name: 'Continue' }).click();
  await page.waitForURL(`${site().url}/with-code`);
  expect(problems).toEqual([]);
  // The other browser's session ended with the set-up.
  expect(await reachesApp(elsewhere.page, '/elsewhere')).toBe(false);
  await Promise.all([context.close(), elsewhere.context.close()]);
});

describe('screenshots', () => {
  test.each([
    { name: 'light', colorScheme: 'light' },
    { name: 'dark', colorScheme: 'dark' },
  ] as const)('the two-step code set-up on the account page, $name', async (variant) => {
    const { context, page, problems } = await signedInAtAccount(`shot-${variant.name}`, { colorScheme: variant.colorScheme, width: 800, height: 1100 });
    await page.locator('#totp-setup').click();
    await page.getByLabel('Code from your app').waitFor();
    await page.mouse.move(0, 0);
    await page.locator('#totp-section').screenshot({ path: join(shots, `account-totp-setup-${variant.name}.png`), animations: 'disabled', caret: 'hide' });
    expect(problems).toEqual([]);
    await context.close();
  });
});
