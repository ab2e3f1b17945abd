import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashOf } from '../support/credentials';
import { submitPassword } from './support/flows';
import { siteBehind } from './support/screenshots';
import { bossEntry, bossLoggedIn } from './support/admin';
import { startStack, type Account, type ProxyName, type Stack } from './support/stack';

/**
 * The People section of the admin console (issue 36) in Chromium through real nginx: an
 * administrator adds a person, edits another, and disables them (whose next request through the
 * proxy is sent to log in); a hand edit of the users file in between makes the page reload the
 * list instead of losing it; a delete asks for confirmation. The file keeps its comments.
 */
const PROXY: ProxyName = 'nginx';
const walt: Account = { username: 'walt', password: 'walt-password' };

let stack: Stack;
let dir: string;
let usersFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portcullis-admin-people-e2e-'));
  usersFile = join(dir, 'users.yaml');
  writeFileSync(
    usersFile,
    [
      '# Edited by hand and by the console.',
      'users:',
      ...bossEntry(),
      '  - username: walt   # the tenant',
      `    password: "${hashOf(walt.password)}"`,
      '    groups: [staff]',
      '',
    ].join('\n'),
  );
  stack = await startStack({
    proxies: [PROXY],
    accounts: [{ username: 'uma' }],
    env: { USERS_FILE: usersFile, ADMIN_GROUPS: 'admins' },
    chromiumArgs: (gatewayUrl) => [`--unsafely-treat-insecure-origin-as-secure=${gatewayUrl}`],
  });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an administrator adds, edits, disables and deletes people of the users file', async () => {
  const site = siteBehind(stack, PROXY);

  const them = await stack.newPage();
  await them.page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(them.page, walt.username, walt.password);
  await them.page.waitForURL(`${stack.gatewayUrl}/account`);
  expect((await them.page.goto(`${site.url}/`))?.status()).toBe(200);

  const admin = await bossLoggedIn(stack);
  await admin.page.goto(`${stack.gatewayUrl}/admin`);
  const page = admin.page;

  // USERS people are read-only.
  await page.locator('[data-read-only="uma"]').waitFor();

  // Add a person.
  await page.getByText('Add a person').click();
  await page.locator('#person-new-username').fill('nina');
  await page.locator('#person-new-name').fill('Nina Simone');
  await page.locator('#person-new-groups').fill('staff, ops');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.locator('#admin-status', { hasText: 'nina added' }).waitFor();
  await page.locator('li[data-person="nina"]').waitFor();

  // Edit walt's name.
  const waltItem = page.locator('li[data-person="walt"]');
  await waltItem.getByRole('button', { name: 'Edit' }).click();
  await waltItem.getByLabel('Name').fill('Walt Whitman');
  await waltItem.getByRole('button', { name: 'Save' }).click();
  await page.locator('#admin-status', { hasText: 'walt changed' }).waitFor();
  await page.locator('li[data-person="walt"] h3', { hasText: 'Walt Whitman' }).waitFor();

  // A hand edit lands: the next change is refused, the list reloaded, nothing lost.
  writeFileSync(usersFile, `${readFileSync(usersFile, 'utf8')}# a hand edit\n`);
  await page.locator('li[data-person="walt"]').getByRole('button', { name: 'Disable' }).click();
  await page.locator('#admin-alert', { hasText: 'The users file changed since this page read it' }).waitFor();
  expect(readFileSync(usersFile, 'utf8')).toContain('# a hand edit\n');

  // Disable walt: their next request through the proxy is sent to log in.
  await page.locator('li[data-person="walt"]').getByRole('button', { name: 'Disable' }).click();
  await page.locator('#admin-status', { hasText: 'walt disabled' }).waitFor();
  await page.locator('[data-disabled="walt"]').waitFor();
  await them.page.goto(`${site.url}/`);
  await them.page.waitForURL(new RegExp(`^${stack.gatewayUrl.replace(/[.]/g, '\\.')}/login`));

  // Delete nina, after the confirmation.
  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('li[data-person="nina"]').getByRole('button', { name: 'Delete' }).click();
  await page.locator('#admin-status', { hasText: 'nina deleted' }).waitFor();
  await page.locator('li[data-person="nina"]').waitFor({ state: 'detached' });

  const file = readFileSync(usersFile, 'utf8');
  expect(file.startsWith('# Edited by hand and by the console.\nusers:\n  - username: boss\n')).toBe(true);
  expect(file).toContain('  - username: walt   # the tenant\n');
  expect(file).toContain('    name: Walt Whitman\n');
  expect(file).toContain('    disabled: true\n');
  expect(file).not.toContain('nina');
  // The one refused change (users_file_changed) is all the browser reports.
  expect(admin.problems).toEqual(['Failed to load resource: the server responded with a status of 409 (Conflict)']);
  await them.context.close();
  await admin.context.close();
}, 90_000);
