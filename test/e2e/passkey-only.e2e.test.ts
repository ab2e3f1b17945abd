import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashOf, TEST_SECRET } from '../support/credentials';
import { runCli } from '../support/process';
import { isFocused, submitPassword } from './support/flows';
import { screenshotDir } from './support/screenshots';
import { startStack, type Stack } from './support/stack';
import { conditionalPending, currentUser, logOutHidingPasskeys, newPasskeyPage, virtualAuthenticator } from './support/webauthn';

/**
 * Issue 16 in a real Chromium with the DevTools protocol's virtual authenticator: an administrator
 * makes a passkey-only account and its first-passkey link with the CLI (the gateway stopped, as
 * the embedded store needs), the person opens the link, registers, is logged in, signs out, signs
 * in with the passkey; a password login for the account is refused; the link does not work twice.
 * Then an account with a password chooses a passkey as its second factor on the account page and
 * gets the passkey-only second step. `npm run screenshots` writes the enrolment page
 * (SCREENSHOT_DIR).
 */
let stack: Stack;
let shots: string;
let work: string;
let enrolCode: string;
const ERIN_PASSWORD = 'erin-Pa55word!';

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'portcullis-e2e-passkey-only-'));
  const usersFile = join(work, 'users.yaml');
  const dataDir = join(work, 'data');
  writeFileSync(
    usersFile,
    `users:\n  - username: dora\n    name: Dora Passkey\n    passkey_only: true\n  - username: erin\n    password: "${hashOf(ERIN_PASSWORD)}"\n`,
  );
  // The administrator's step, before the gateway runs (it would hold the database file).
  const made = await runCli(['passkeys', 'enrol', 'dora'], {
    env: { APP_URL: 'http://auth.example.test', SECRET: TEST_SECRET, USERS_FILE: usersFile, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
  });
  expect(made.stderr).toBe('');
  expect(made.code).toBe(0);
  const url = made.stdout.split('\n').find((l) => l.startsWith('http://auth.example.test/enrol#')) ?? '';
  enrolCode = url.slice(url.indexOf('#') + 1);
  expect(enrolCode).toMatch(/^[A-Za-z0-9_-]{40,}$/);

  stack = await startStack({
    proxies: [],
    accounts: [{ username: 'alice' }],
    env: { LOG_LEVEL: 'info', USERS_FILE: usersFile, DATA_DIR: dataDir },
    chromiumArgs: (gatewayUrl) => [`--unsafely-treat-insecure-origin-as-secure=${gatewayUrl}`],
  });
  shots = screenshotDir(stack);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(work, { recursive: true, force: true });
});

async function pollFor(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a passkey-only person registers from the link, is logged in, signs out and in with the passkey; no password, no second use of the link', async () => {
  const { context, page, problems } = await newPasskeyPage(stack);
  const authenticator = await virtualAuthenticator(page);
  await page.goto(`${stack.gatewayUrl}/enrol#${enrolCode}`);
  await page.getByRole('heading', { name: 'Set up your passkey' }).waitFor();
  // The code leaves the address bar at once (no history entry, no screenshot of it).
  expect(page.url()).toBe(`${stack.gatewayUrl}/enrol`);
  // Keyboard only: the name field has the focus, Enter creates the passkey.
  await expect(isFocused(page.getByLabel('Name for this passkey'))).resolves.toBe(true);
  await page.keyboard.type('Phone');
  await page.screenshot({ path: join(shots, 'enrol-passkey.png'), animations: 'disabled', caret: 'hide', timeout: 10_000 });
  await page.keyboard.press('Enter');
  await page.waitForURL(`${stack.gatewayUrl}/account`);
  expect(await currentUser(page)).toMatchObject({ isLoggedIn: true, username: 'dora' });
  await page.locator('.passkey-name', { hasText: 'Phone' }).waitFor();
  // A passkey-only account has no password step, so no second-factor choice either.
  expect(await page.locator('#passkey-second-factor').isHidden()).toBe(true);
  expect(problems).toEqual([]);

  const restore = await logOutHidingPasskeys(stack, page, authenticator);
  // A password login for the passkey-only account reads like any wrong password.
  await submitPassword(page, 'dora', 'whatever-Pa55word!');
  await page.getByRole('alert').waitFor();
  expect(await currentUser(page)).toMatchObject({ isLoggedIn: false });

  await page.goto(`${stack.gatewayUrl}/login`);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  await pollFor(() => conditionalPending(page), 'the autofill request');
  await restore();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/account`);
  expect(await currentUser(page)).toMatchObject({ isLoggedIn: true, username: 'dora' });
  // No password to confirm a passkey change with: the account's own passkey does that (issue 29;
  // the ceremony itself: test/contract/http/passkey-reauthentication.test.ts).
  expect(await page.locator('#passkey-password').isHidden()).toBe(true);
  await expect(page.locator('#passkey-confirm-hint').textContent()).resolves.toContain('asks for one of your passkeys first');
  await context.close();

  // The link again, in another browser: spent.
  const replay = await newPasskeyPage(stack);
  await virtualAuthenticator(replay.page);
  await replay.page.goto(`${stack.gatewayUrl}/enrol#${enrolCode}`);
  await replay.page.getByRole('button', { name: 'Create my passkey' }).click();
  await replay.page.getByText('This link cannot be used').waitFor();
  expect(await currentUser(replay.page)).toMatchObject({ isLoggedIn: false });
  await replay.context.close();
});

test('an account with a password chooses a passkey as its second factor: the next login asks only for the passkey', async () => {
  const { context, page, problems } = await newPasskeyPage(stack);
  const authenticator = await virtualAuthenticator(page);
  await page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(page, 'erin', ERIN_PASSWORD);
  await page.waitForURL(`${stack.gatewayUrl}/account`);
  await page.getByLabel('Name for a new passkey').fill('Key');
  await page.getByLabel('Password, to confirm passkey changes').fill(ERIN_PASSWORD);
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.locator('.passkey-name', { hasText: 'Key' }).waitFor();
  const choice = page.getByLabel('Ask for a passkey after my password');
  await pollFor(async () => !(await choice.isDisabled()), 'the choice to be offered');
  // Keyboard only: Space ticks the focused box (the password confirms the change, issue 29).
  await page.getByLabel('Password, to confirm passkey changes').fill(ERIN_PASSWORD);
  await choice.focus();
  await page.keyboard.press('Space');
  await page.getByText('Saved. It applies from your next login.').waitFor();
  await page.reload();
  await pollFor(async () => choice.isChecked(), 'the saved choice');

  const restore = await logOutHidingPasskeys(stack, page, authenticator);
  await submitPassword(page, 'erin', ERIN_PASSWORD);
  await page.waitForURL(`${stack.gatewayUrl}/totp**`);
  await page.getByRole('heading', { name: 'Confirm with your passkey' }).waitFor();
  expect(await page.getByLabel('One-time code').count()).toBe(0);
  expect(await currentUser(page)).toMatchObject({ isLoggedIn: false, totpPending: 'true', secondFactors: ['passkey'] });
  await restore();
  await page.getByRole('button', { name: 'Use my passkey' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/account`);
  expect(await currentUser(page)).toMatchObject({ isLoggedIn: true, username: 'erin' });
  expect(problems).toEqual([]);
  await context.close();
});
