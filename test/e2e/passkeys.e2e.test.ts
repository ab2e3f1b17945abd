import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { submitPassword, totpCode } from './support/flows';
import { screenshotDir } from './support/screenshots';
import { startStack, type Stack } from './support/stack';
import { credentialsOf, currentUser, logOutHidingPasskeys, newPasskeyPage, virtualAuthenticator } from './support/webauthn';

/**
 * Passkeys in a real Chromium, with the DevTools protocol's virtual authenticator (a platform
 * authenticator with resident keys and user verification): register from the account page, sign
 * out, sign in with the button and with the username field's autofill, a passkey as a TOTP
 * account's second factor, removal, and a cloned authenticator with a stale counter refused.
 * Plain-http test origins are not secure contexts, so Chromium is told to treat the gateway's as
 * one (WebAuthn needs it). `npm run screenshots` writes the login button and the account page's
 * section into docs/screenshots (SCREENSHOT_DIR).
 */
let stack: Stack;
let shots: string;

beforeAll(async () => {
  stack = await startStack({
    proxies: [],
    accounts: [{ username: 'alice' }, { username: 'bob', totp: true }, { username: 'carol' }],
    env: { LOG_LEVEL: 'info', DISABLE_CONTINUE: 'false' },
    chromiumArgs: (gatewayUrl) => [`--unsafely-treat-insecure-origin-as-secure=${gatewayUrl}`],
  });
  shots = screenshotDir(stack);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function clickPasskeyButton(page: Page, restore: () => Promise<void>): Promise<void> {
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  // The page asks for autofill only after fetching its options: give the passkeys back once that
  // request is pending, or the autofill (not the button) would take them.
  await page.waitForFunction(() => (globalThis as unknown as { conditionalPending?: boolean }).conditionalPending === true);
  await restore();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
}

async function loginWithPassword(page: Page, username: string, password: string): Promise<void> {
  await page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(page, username, password);
}

/** Adds a passkey on the account page, confirming with the account's password (issue 29: a session alone adds none). */
async function addPasskey(page: Page, name: string, password: string): Promise<void> {
  await page.goto(`${stack.gatewayUrl}/account`);
  await page.getByLabel('Name for a new passkey').fill(name);
  await page.getByLabel('Password, to confirm passkey changes').fill(password);
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.locator('.passkey-name', { hasText: name }).waitFor();
}

function gatewayLog(): string {
  return readFileSync(join(stack.dir, 'gateway.log'), 'utf8');
}

test('the login page offers a passkey button (screenshot)', async () => {
  const { context, page } = await newPasskeyPage(stack);
  await page.goto(`${stack.gatewayUrl}/login`);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  await page.screenshot({ path: join(shots, 'login-passkey.png'), animations: 'disabled', caret: 'hide', timeout: 10_000 });
  await context.close();
});

test('register a passkey on the account page, sign out, sign in with the button; remove it', async () => {
  const { context, page } = await newPasskeyPage(stack);
  const authenticator = await virtualAuthenticator(page);
  await loginWithPassword(page, 'alice', stack.accounts.alice.password);
  await page.waitForURL(`${stack.gatewayUrl}/account`);

  await addPasskey(page, 'Laptop', stack.accounts.alice.password);
  await expect(page.locator('.passkey-dates').first().textContent()).resolves.toContain('last used never');
  expect(await credentialsOf(authenticator)).toEqual([expect.objectContaining({ rpId: 'example.test', isResidentCredential: true })]);
  await page.screenshot({ path: join(shots, 'account-passkeys.png'), fullPage: true, animations: 'disabled', caret: 'hide', timeout: 10_000 });

  const restore = await logOutHidingPasskeys(stack, page, authenticator);
  await expect(page.getByLabel('Username or e-mail').getAttribute('autocomplete')).resolves.toBe('username webauthn');
  await clickPasskeyButton(page, restore);
  await page.waitForURL(`${stack.gatewayUrl}/account`);
  expect(await currentUser(page)).toMatchObject({ isLoggedIn: true, username: 'alice' });
  expect(gatewayLog()).toMatch(/"method":"passkey"[^\n]*"username":"alice"|"username":"alice"[^\n]*"method":"passkey"/);

  await expect(page.locator('.passkey-dates').first().textContent()).resolves.not.toContain('last used never');
  // The account page names the passkey added lately, for a session that did not add it.
  await expect(page.locator('#passkeys-recent').textContent()).resolves.toContain('A passkey “Laptop” was added to your account');
  // Removing asks for the password again: without it, nothing is sent.
  await page.getByRole('button', { name: 'Remove Laptop' }).click();
  await page.getByText('Enter your password to confirm it is you.').waitFor();
  await page.getByLabel('Password, to confirm passkey changes').fill('not-the-password');
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Remove Laptop' }).click();
  await page.getByText('That password is not right. Try again.').waitFor();
  await expect(page.locator('.passkey-name').count()).resolves.toBe(1);
  await page.getByLabel('Password, to confirm passkey changes').fill(stack.accounts.alice.password);
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Remove Laptop' }).click();
  await page.getByText('No passkeys yet.').waitFor();

  await clickPasskeyButton(page, await logOutHidingPasskeys(stack, page, authenticator));
  await expect(page.getByRole('alert').textContent()).resolves.toContain('That passkey was not accepted');
  expect(await currentUser(page)).toMatchObject({ isLoggedIn: false });
  await context.close();
});

test('sign in through the username field’s passkey autofill (conditional mediation), no button clicked', async () => {
  const { context, page } = await newPasskeyPage(stack);
  const authenticator = await virtualAuthenticator(page);
  await loginWithPassword(page, 'carol', stack.accounts.carol.password);
  await page.waitForURL(`${stack.gatewayUrl}/account`);
  await addPasskey(page, 'Phone', stack.accounts.carol.password);
  const restore = await logOutHidingPasskeys(stack, page, authenticator);
  await restore();
  // Loaded again, the login page asks for a conditional (autofill) request.
  await page.reload();
  // Focusing the field is what shows a person the passkey suggestion; Chromium's virtual
  // authenticator picks it (sometimes before the click lands: the page has then moved on).
  await page
    .getByLabel('Username or e-mail')
    .click({ timeout: 3000 })
    .catch(() => undefined);
  await page.waitForURL(`${stack.gatewayUrl}/account`, { timeout: 15_000 });
  expect(await currentUser(page)).toMatchObject({ isLoggedIn: true, username: 'carol' });
  expect(gatewayLog()).toMatch(/"method":"passkey"[^\n]*"username":"carol"|"username":"carol"[^\n]*"method":"passkey"/);
  await context.close();
});

test('a TOTP account uses its passkey instead of the code', async () => {
  const { context, page } = await newPasskeyPage(stack);
  const authenticator = await virtualAuthenticator(page);
  const bob = stack.accounts.bob;
  await loginWithPassword(page, 'bob', bob.password);
  await page.waitForURL(`${stack.gatewayUrl}/totp**`);
  await page.getByLabel('One-time code').fill(await totpCode(bob));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/account`);
  await addPasskey(page, 'Key', bob.password);
  const restore = await logOutHidingPasskeys(stack, page, authenticator);

  await submitPassword(page, 'bob', bob.password);
  await page.waitForURL(`${stack.gatewayUrl}/totp**`);
  await restore();
  await page.getByRole('button', { name: 'Use a passkey instead' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/account`);
  expect(await currentUser(page)).toMatchObject({ isLoggedIn: true, username: 'bob' });
  await context.close();
});

test('a cloned authenticator with a stale counter is refused and logged', async () => {
  const first = await newPasskeyPage(stack);
  const original = await virtualAuthenticator(first.page);
  await loginWithPassword(first.page, 'alice', stack.accounts.alice.password);
  await first.page.waitForURL(`${stack.gatewayUrl}/account`);
  await addPasskey(first.page, 'Original', stack.accounts.alice.password);
  const [snapshot] = await credentialsOf(original);
  // Two logins with the original move the stored counter past the snapshot's.
  for (let i = 0; i < 2; i += 1) {
    // Button or autofill (the autofill request may take the passkey first once it is back): either is a login with the original.
    const restore = await logOutHidingPasskeys(stack, first.page, original);
    await restore();
    await first.page
      .locator('#passkey-login')
      .click({ timeout: 3000 })
      .catch(() => undefined);
    await first.page.waitForURL(`${stack.gatewayUrl}/account`);
  }
  expect((await credentialsOf(original))[0].signCount).toBeGreaterThan(snapshot.signCount + 1);
  // The original leaves before the copy arrives: only the copy can answer the next login.
  await original.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: original.id });
  await first.context.close();

  // The copy holds the passkey before the login page loads: the page's autofill request takes it at
  // once (one ceremony; a button click racing the autofill could replace its challenge first).
  const second = await newPasskeyPage(stack);
  const clone = await virtualAuthenticator(second.page);
  await clone.cdp.send('WebAuthn.addCredential', { authenticatorId: clone.id, credential: snapshot });
  await second.page.goto(`${stack.gatewayUrl}/login`);
  await expect(second.page.getByRole('alert').textContent()).resolves.toContain('That passkey was not accepted');
  expect(await currentUser(second.page)).toMatchObject({ isLoggedIn: false });
  expect(gatewayLog()).toContain('"event":"passkey_counter_regressed"');
  await second.context.close();
});
