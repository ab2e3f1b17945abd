import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { submitPassword, totpCode } from './support/flows';
import { siteBehind } from './support/screenshots';
import { BOSS, bossLoggedIn, bossUsersFile } from './support/admin';
import { startStack, type ProxyName, type Stack } from './support/stack';

/**
 * The admin console (issue 36) in Chromium through real nginx: an administrator (ADMIN_GROUPS,
 * a users-file account with a TOTP code) whose code is older than ADMIN_STEP_UP_MAX_AGE opens
 * /admin from the account page, is sent to the login page's step-up, comes back to /admin, and
 * ends every session of another person, whose next request through the proxy is sent to log in.
 */
const PROXY: ProxyName = 'nginx';
const MAX_AGE_S = 30;
const boss = BOSS;

let stack: Stack;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portcullis-admin-e2e-'));
  const usersFile = bossUsersFile(dir);
  stack = await startStack({
    proxies: [PROXY],
    accounts: [{ username: 'victim' }],
    env: { USERS_FILE: usersFile, ADMIN_GROUPS: 'admins', ADMIN_STEP_UP_MAX_AGE: String(MAX_AGE_S) },
    chromiumArgs: (gatewayUrl) => [`--unsafely-treat-insecure-origin-as-secure=${gatewayUrl}`],
  });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an administrator steps up, ends another person’s sessions, and that person stops passing forward auth', async () => {
  const site = siteBehind(stack, PROXY);
  const victim = stack.accounts.victim;

  // The person: logged in, the protected app serves them.
  const them = await stack.newPage();
  await them.page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(them.page, victim.username, victim.password);
  await them.page.waitForURL(`${stack.gatewayUrl}/account`);
  await them.page.locator('#current-user').waitFor();
  expect(await them.page.locator('#admin-link').count()).toBe(0);
  expect((await them.page.goto(`${site.url}/`))?.status()).toBe(200);

  // The administrator: a full login, then long enough for the code to be too old for the console.
  const admin = await bossLoggedIn(stack);
  await admin.page.waitForTimeout(MAX_AGE_S * 1000 + 1000);

  await admin.page.locator('#admin-link').click();
  await admin.page.waitForURL(new RegExp(`^${stack.gatewayUrl.replace(/[.]/g, '\\.')}/login\\?step_up=`));
  await admin.page.getByLabel('One-time code').fill(await totpCode(boss, true));
  await admin.page.getByRole('button', { name: 'Confirm' }).click();
  await admin.page.waitForURL(`${stack.gatewayUrl}/admin`);

  const person = admin.page.locator('li[data-person="victim"]');
  await person.waitFor();
  expect(await admin.page.locator('li[data-username="victim"]').count()).toBe(1);
  await person.getByRole('button', { name: "End all of this person's sessions" }).click();
  await admin.page.locator('#admin-status', { hasText: 'Sessions ended: 1.' }).waitFor();
  await admin.page.locator('li[data-username="victim"]').waitFor({ state: 'detached' });

  // The person's next request through the proxy is sent to log in.
  await them.page.goto(`${site.url}/`);
  await them.page.waitForURL(new RegExp(`^${stack.gatewayUrl.replace(/[.]/g, '\\.')}/login`));
  expect(admin.problems).toEqual([]);
  await them.context.close();
  await admin.context.close();
}, 90_000);
