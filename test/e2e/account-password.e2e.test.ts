import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { hashOf } from '../support/credentials';
import { tempDataDir } from '../support/data-dir';
import { isFocused, submitPassword } from './support/flows';
import { siteBehind } from './support/screenshots';
import { startStack, type Site, type Stack } from './support/stack';

/**
 * Changing one's own password on the account page (issue 36), in Chromium through nginx: a
 * users-file account types the new password twice (a mismatch is caught in the page), a wrong
 * current password is refused and announced, the right one changes it; the browser that changed it
 * still reaches the app, another browser's session no longer does, and the next login takes only
 * the new password. A USERS account never sees the form.
 */

const OLD = 'petra-old-password';
const NEW = 'a much longer passphrase';

let stack: Stack;
const files = tempDataDir('portcullis-e2e-users');

beforeAll(async () => {
  const usersFile = join(files.dir, 'users.yaml');
  writeFileSync(usersFile, `# people of the e2e test\nusers:\n  - username: petra\n    password: "${hashOf(OLD)}"\n`);
  stack = await startStack({ proxies: ['nginx'], accounts: [{ username: 'ulla' }], env: { USERS_FILE: usersFile } });
});
afterAll(async () => {
  await stack?.stop();
  files.remove();
});

const site = (): Site => siteBehind(stack, 'nginx');

async function signedInAtAccount(username: string, password: string) {
  const opened = await stack.newPage();
  await opened.page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(opened.page, username, password);
  await opened.page.waitForURL(`${stack.gatewayUrl}/account`);
  return opened;
}

/** Whether a visit to the protected app gets through (true) or goes to a login page (false). */
async function reachesApp(page: Page, path: string): Promise<boolean> {
  const target = `${site().url}${path}`;
  await page.goto(target);
  await page.waitForURL((url) => url.href === target || url.href.startsWith(`${stack.gatewayUrl}/`));
  return page.url() === target;
}

test('a users-file account changes its password on the page: other browsers signed out, the new password logs in', async () => {
  const elsewhere = await signedInAtAccount('petra', OLD);
  expect(await reachesApp(elsewhere.page, '/before')).toBe(true);
  const { context, page, problems } = await signedInAtAccount('petra', OLD);
  const section = page.locator('#password-section');
  await section.waitFor();
  const current = page.getByLabel('Current password');
  const fresh = page.getByLabel('New password', { exact: true });
  const again = page.getByLabel('New password again');

  // Typed twice differently: caught in the page, nothing sent.
  await current.fill(OLD);
  await fresh.fill(NEW);
  await again.fill(`${NEW}!`);
  await again.press('Enter');
  await page.locator('#password-alert', { hasText: 'The two new passwords are not the same.' }).waitFor();
  await expect(again.getAttribute('aria-invalid')).resolves.toBe('true');
  await expect(isFocused(again)).resolves.toBe(true);

  // A wrong current password: refused by the server, the field emptied and focused.
  await current.fill('not-petras-password');
  await again.fill(NEW);
  await again.press('Enter');
  await page.locator('#password-alert', { hasText: 'That current password is not right.' }).waitFor();
  await expect(isFocused(current)).resolves.toBe(true);
  await expect(current.inputValue()).resolves.toBe('');

  await current.fill(OLD);
  await current.press('Enter');
  await page.locator('#password-status', { hasText: 'Password changed.' }).waitFor();
  await expect(fresh.inputValue()).resolves.toBe('');

  expect(await reachesApp(page, '/after')).toBe(true);
  expect(await reachesApp(elsewhere.page, '/elsewhere')).toBe(false);
  const later = await stack.newPage();
  await later.page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(later.page, 'petra', OLD);
  await later.page.locator('[role="alert"]', { hasText: /./ }).first().waitFor();
  expect(later.page.url()).toContain('/login');
  await submitPassword(later.page, 'petra', NEW);
  await later.page.waitForURL(`${stack.gatewayUrl}/account`);
  expect(problems).toEqual([]);
  await Promise.all([context.close(), elsewhere.context.close(), later.context.close()]);
});

test('a USERS account sees no password form', async () => {
  const ulla = stack.accounts.ulla;
  const opened = await stack.newPage();
  const asked = opened.page.waitForResponse((res) => res.url().endsWith('/api/account/password'));
  await opened.page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(opened.page, ulla.username, ulla.password);
  await opened.page.waitForURL(`${stack.gatewayUrl}/account`);
  expect(((await (await asked).json()) as { changeable: boolean }).changeable).toBe(false);
  await expect(opened.page.locator('#password-section').isHidden()).resolves.toBe(true);
  await opened.context.close();
});
