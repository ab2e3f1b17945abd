import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { submitPassword, totpCode } from './support/flows';
import { screenshotDir, siteBehind } from './support/screenshots';
import { BOSS, bossLoggedIn, bossUsersFile } from './support/admin';
import { startStack, type ProxyName, type Stack } from './support/stack';

/**
 * Invitations (issue 36) in Chromium through real nginx: an administrator steps up, adds a person
 * and makes a password link for them; the person opens it in a browser of their own, chooses a
 * password and logs in, and the protected app serves them; the administrator disables them and
 * their very next request through the proxy is sent to log in; the console's audit trail shows
 * each step.
 */
const PROXY: ProxyName = 'nginx';
const MAX_AGE_S = 30;
const boss = BOSS;
const NEW_PASSWORD = 'a password chosen by the newcomer';

let stack: Stack;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portcullis-invite-e2e-'));
  const usersFile = bossUsersFile(dir);
  stack = await startStack({
    proxies: [PROXY],
    accounts: [],
    env: { USERS_FILE: usersFile, ADMIN_GROUPS: 'admins', ADMIN_STEP_UP_MAX_AGE: String(MAX_AGE_S) },
    chromiumArgs: (gatewayUrl) => [`--unsafely-treat-insecure-origin-as-secure=${gatewayUrl}`],
  });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an administrator invites a person, who sets a password and logs in; disabled, they stop passing forward auth', async () => {
  const site = siteBehind(stack, PROXY);
  const gateway = stack.gatewayUrl.replace(/[.]/g, '\\.');

  // The administrator: a full login, a second factor grown too old for the console, and the step-up back into it.
  const admin = await bossLoggedIn(stack);
  await admin.page.waitForTimeout(MAX_AGE_S * 1000 + 1000);
  await admin.page.goto(`${stack.gatewayUrl}/admin`);
  await admin.page.waitForURL(new RegExp(`^${gateway}/login\\?step_up=`));
  await admin.page.getByLabel('One-time code').fill(await totpCode(boss, true));
  await admin.page.getByRole('button', { name: 'Confirm' }).click();
  await admin.page.waitForURL(`${stack.gatewayUrl}/admin`);

  // A new person, then a password link for them, shown to copy.
  await admin.page.getByText('Add a person').click();
  await admin.page.getByLabel('Username', { exact: true }).fill('newcomer');
  await admin.page.getByRole('button', { name: 'Add', exact: true }).click();
  const person = admin.page.locator('li[data-person="newcomer"]');
  await person.waitFor();
  await person.getByRole('button', { name: 'Password link' }).click();
  const shown = person.locator('input[data-invite-link="newcomer"]');
  await shown.waitFor();
  const link = await shown.inputValue();
  expect(link).toMatch(new RegExp(`^${gateway}/invite#[A-Za-z0-9_-]{40,}$`));

  // The person, in a browser of their own: the link, a password (a mismatch first), a login, the app.
  const them = await stack.newPage();
  await them.page.goto(link);
  await them.page.locator('#invite-form').waitFor();
  // The page took the code out of the address bar (history, screenshots, a shared screen).
  expect(them.page.url()).toBe(`${stack.gatewayUrl}/invite`);
  await them.page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
  await them.page.getByLabel('New password, again').fill(`${NEW_PASSWORD}!`);
  await them.page.getByRole('button', { name: 'Set password' }).click();
  await them.page.locator('#invite-alert', { hasText: 'The two passwords differ.' }).waitFor();
  await them.page.getByLabel('New password, again').fill(NEW_PASSWORD);
  await them.page.getByRole('button', { name: 'Set password' }).click();
  await them.page.locator('#invite-done', { hasText: 'Your password is set, newcomer.' }).waitFor();

  await them.page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(them.page, 'newcomer', NEW_PASSWORD);
  await them.page.waitForURL(`${stack.gatewayUrl}/account`);
  expect((await them.page.goto(`${site.url}/`))?.status()).toBe(200);

  // The same link a second time, in yet another browser: refused with a clear page.
  const again = await stack.newPage();
  await again.page.goto(link);
  await again.page.getByLabel('New password', { exact: true }).fill('someone else entirely');
  await again.page.getByLabel('New password, again').fill('someone else entirely');
  await again.page.getByRole('button', { name: 'Set password' }).click();
  await again.page.locator('#invite-alert', { hasText: 'This link is not valid' }).waitFor();

  // Disabled by the administrator: within a second the proxy sends the person to log in.
  await admin.page.reload();
  await person.getByRole('button', { name: 'Disable' }).click();
  await admin.page.locator('span[data-disabled="newcomer"]').waitFor();
  const disabledAt = Date.now();
  await them.page.goto(`${site.url}/`);
  await them.page.waitForURL(new RegExp(`^${gateway}/login`));
  expect(Date.now() - disabledAt).toBeLessThan(1000);

  // The console's audit trail tells each step, newest first (it is written in batches: ask until the last is there).
  await admin.page.getByLabel('Person (username)').fill('newcomer');
  const revoked = admin.page.locator('#audit-events > li[data-audit-event="sessions_revoked"]');
  for (let i = 0; i < 20 && (await revoked.count()) === 0; i += 1) {
    await admin.page.getByRole('button', { name: 'Show' }).click();
    await admin.page.waitForTimeout(250);
  }
  const trail = await admin.page.locator('#audit-events > li').evaluateAll((items) => items.map((li) => li.getAttribute('data-audit-event')));
  const steps = ['user_created', 'invitation_issued', 'invitation_redeemed', 'login_succeeded', 'user_disabled', 'sessions_revoked'];
  const at = steps.map((step) => trail.indexOf(step));
  expect(at.every((i) => i >= 0)).toBe(true);
  // Newest first: each step sits above the one before it.
  expect([...at].sort((a, b) => b - a)).toEqual(at);

  // docs/admin.md's pictures (`npm run screenshots`): the people and the audit trail as they now stand.
  const shots = screenshotDir(stack);
  await admin.page.mouse.move(0, 0);
  for (const [heading, name] of [
    ['people-heading', 'admin-people'],
    ['audit-heading', 'admin-audit'],
  ] as const) {
    await admin.page.locator(`section[aria-labelledby="${heading}"]`).screenshot({ path: join(shots, `${name}.png`), animations: 'disabled', caret: 'hide' });
  }

  expect(admin.problems).toEqual([]);
  expect(them.problems).toEqual([]);
  await again.context.close();
  await them.context.close();
  await admin.context.close();
}, 120_000);
