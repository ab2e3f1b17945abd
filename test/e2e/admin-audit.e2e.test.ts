import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { submitPassword } from './support/flows';
import { bossLoggedIn, bossUsersFile } from './support/admin';
import { startStack, type Stack } from './support/stack';

/**
 * The admin console's audit trail (issue 36) in Chromium: a person logs in and fails once, an
 * administrator with a fresh code opens /admin, filters the trail by that person, sees both
 * events (the password never in them), and the download link carries the same filters.
 */

let stack: Stack;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portcullis-admin-audit-e2e-'));
  const usersFile = bossUsersFile(dir);
  stack = await startStack({
    proxies: ['nginx'],
    accounts: [{ username: 'victim' }],
    env: { USERS_FILE: usersFile, ADMIN_GROUPS: 'admins', DATA_DIR: join(dir, 'data') },
    chromiumArgs: (gatewayUrl) => [`--unsafely-treat-insecure-origin-as-secure=${gatewayUrl}`],
  });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an administrator finds a person’s login and failed login in the audit trail and gets a filtered download link', async () => {
  const victim = stack.accounts.victim;
  const them = await stack.newPage();
  await them.page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(them.page, victim.username, 'not-the-password');
  await them.page.locator('#login-alert, [role="alert"]').first().waitFor();
  await submitPassword(them.page, victim.username, victim.password);
  await them.page.waitForURL(`${stack.gatewayUrl}/account`);

  const admin = await bossLoggedIn(stack);
  await admin.page.goto(`${stack.gatewayUrl}/admin`);
  await admin.page.locator('#audit-heading').waitFor();

  await admin.page.getByLabel('Person (username)').fill('victim');
  const events = admin.page.locator('#audit-events > li');
  // The trail is written in batches: ask again until the failure is there (the stack's own set-up logged the person in before).
  const failed = admin.page.locator('#audit-events > li[data-audit-event="login_failed"]');
  for (let i = 0; i < 20; i += 1) {
    await admin.page.getByRole('button', { name: 'Show' }).click();
    await admin.page.waitForTimeout(250);
    if ((await failed.count()) > 0) break;
  }
  const names = await events.evaluateAll((items) => items.map((li) => li.getAttribute('data-audit-event')));
  // Newest first: the login that followed the failure comes before it.
  expect(names.indexOf('login_succeeded')).toBeGreaterThanOrEqual(0);
  expect(names.indexOf('login_succeeded')).toBeLessThan(names.indexOf('login_failed'));
  expect(await events.evaluateAll((items) => items.every((li) => li.textContent?.includes('victim')))).toBe(true);
  expect(await admin.page.locator('#audit-export').getAttribute('href')).toBe('/api/admin/audit/export?username=victim');
  await admin.page.locator('li[data-audit-event="login_failed"] summary').click();
  expect(await admin.page.locator('li[data-audit-event="login_failed"] pre').textContent()).not.toContain('not-the-password');

  // Without the filter, everyone's: the administrator's own login is there too.
  await admin.page.getByLabel('Person (username)').fill('');
  await admin.page.getByRole('button', { name: 'Show' }).click();
  await admin.page.locator('#audit-events > li[data-audit-event="login_succeeded"]', { hasText: 'boss' }).first().waitFor();
  expect(await admin.page.locator('#audit-more').isHidden()).toBe(true);
  expect(admin.problems).toEqual([]);
  await them.context.close();
  await admin.context.close();
}, 90_000);
