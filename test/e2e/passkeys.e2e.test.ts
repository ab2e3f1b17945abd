import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { submitPassword, totpCode } from './support/flows';
import { startStack, type Stack } from './support/stack';

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
  shots = process.env.SCREENSHOT_DIR !== undefined ? resolve(process.env.SCREENSHOT_DIR) : join(stack.dir, 'screenshots');
  mkdirSync(shots, { recursive: true });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

interface Authenticator {
  readonly cdp: CDPSession;
  readonly id: string;
}

/** A virtual platform authenticator for the page's browser context. */
async function virtualAuthenticator(page: Page): Promise<Authenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { cdp, id: authenticatorId };
}

async function credentialsOf(a: Authenticator) {
  return (await a.cdp.send('WebAuthn.getCredentials', { authenticatorId: a.id })).credentials;
}

async function loginWithPassword(page: Page, username: string, password: string): Promise<void> {
  await page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(page, username, password);
}

async function user(page: Page): Promise<Record<string, unknown>> {
  return page.evaluate(async () => (await fetch('/api/user')).json() as Promise<Record<string, unknown>>);
}

async function addPasskey(page: Page, name: string): Promise<void> {
  await page.goto(`${stack.gatewayUrl}/logout`);
  await page.getByLabel('Name for a new passkey').fill(name);
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.locator('.passkey-name', { hasText: name }).waitFor();
}

async function logOut(page: Page): Promise<void> {
  await page.goto(`${stack.gatewayUrl}/logout`);
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/login`);
}

async function newPage(): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const created = await stack.newPage();
  // A refused passkey answers 400/401, which Chromium logs as a console error; the test checks the page's own message.
  return created;
}

function gatewayLog(): string {
  return readFileSync(join(stack.dir, 'gateway.log'), 'utf8');
}

test('the login page offers a passkey button (screenshot)', async () => {
  const { context, page } = await newPage();
  await page.goto(`${stack.gatewayUrl}/login`);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  await page.screenshot({ path: join(shots, 'login-passkey.png'), animations: 'disabled', caret: 'hide', timeout: 10_000 });
  await context.close();
});

test('register a passkey on the account page, sign out, sign in with the button; remove it', async () => {
  const { context, page } = await newPage();
  const authenticator = await virtualAuthenticator(page);
  await loginWithPassword(page, 'alice', stack.accounts.alice.password);
  await page.waitForURL(`${stack.gatewayUrl}/logout`);

  await addPasskey(page, 'Laptop');
  await expect(page.locator('.passkey-dates').first().textContent()).resolves.toContain('last used never');
  expect(await credentialsOf(authenticator)).toEqual([expect.objectContaining({ rpId: 'example.test', isResidentCredential: true })]);
  await page.screenshot({ path: join(shots, 'account-passkeys.png'), fullPage: true, animations: 'disabled', caret: 'hide' });

  await logOut(page);
  await expect(page.getByRole('button', { name: 'Sign in with a passkey' }).isVisible()).resolves.toBe(true);
  await expect(page.getByLabel('Username or e-mail').getAttribute('autocomplete')).resolves.toBe('username webauthn');
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/logout`);
  expect(await user(page)).toMatchObject({ isLoggedIn: true, username: 'alice' });
  expect(gatewayLog()).toMatch(/"event":"login_succeeded"[^\n]*"method":"passkey"|"method":"passkey"[^\n]*"event":"login_succeeded"/);

  await page.goto(`${stack.gatewayUrl}/logout`);
  await expect(page.locator('.passkey-dates').first().textContent()).resolves.not.toContain('last used never');
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Remove Laptop' }).click();
  await page.getByText('No passkeys yet.').waitFor();

  await logOut(page);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByRole('alert').textContent()).resolves.toContain('That passkey was not accepted');
  expect(await user(page)).toMatchObject({ isLoggedIn: false });
  await context.close();
});

test('sign in through the username field’s passkey autofill (conditional mediation)', async () => {
  const { context, page } = await newPage();
  await virtualAuthenticator(page);
  await loginWithPassword(page, 'carol', stack.accounts.carol.password);
  await page.waitForURL(`${stack.gatewayUrl}/logout`);
  await addPasskey(page, 'Phone');
  await logOut(page);
  // The page asked for a conditional passkey request when it loaded; with the virtual
  // authenticator (automatic presence) Chromium answers it once the field is used.
  await page.getByLabel('Username or e-mail').click();
  await page.waitForURL(`${stack.gatewayUrl}/logout`, { timeout: 15_000 });
  expect(await user(page)).toMatchObject({ isLoggedIn: true, username: 'carol' });
  await context.close();
});

test('a TOTP account uses its passkey instead of the code', async () => {
  const { context, page } = await newPage();
  await virtualAuthenticator(page);
  const bob = stack.accounts.bob;
  await loginWithPassword(page, 'bob', bob.password);
  await page.waitForURL(`${stack.gatewayUrl}/totp**`);
  await page.getByLabel('One-time code').fill(await totpCode(bob));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/logout`);
  await addPasskey(page, 'Key');
  await logOut(page);

  await submitPassword(page, 'bob', bob.password);
  await page.waitForURL(`${stack.gatewayUrl}/totp**`);
  await page.getByRole('button', { name: 'Use a passkey instead' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/logout`);
  expect(await user(page)).toMatchObject({ isLoggedIn: true, username: 'bob' });
  await context.close();
});

test('a cloned authenticator with a stale counter is refused and logged', async () => {
  const first = await newPage();
  const original = await virtualAuthenticator(first.page);
  await loginWithPassword(first.page, 'alice', stack.accounts.alice.password);
  await first.page.waitForURL(`${stack.gatewayUrl}/logout`);
  await addPasskey(first.page, 'Original');
  const [snapshot] = await credentialsOf(original);
  // Two logins with the original move the stored counter past the snapshot's.
  for (let i = 0; i < 2; i += 1) {
    await logOut(first.page);
    await first.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await first.page.waitForURL(`${stack.gatewayUrl}/logout`);
  }
  expect((await credentialsOf(original))[0].signCount).toBeGreaterThan(snapshot.signCount + 1);

  const second = await newPage();
  const clone = await virtualAuthenticator(second.page);
  await clone.cdp.send('WebAuthn.addCredential', { authenticatorId: clone.id, credential: { ...snapshot, signCount: snapshot.signCount } });
  await second.page.goto(`${stack.gatewayUrl}/login`);
  await second.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(second.page.getByRole('alert').textContent()).resolves.toContain('That passkey was not accepted');
  expect(await user(second.page)).toMatchObject({ isLoggedIn: false });
  expect(gatewayLog()).toContain('"event":"passkey_counter_regressed"');
  await first.context.close();
  await second.context.close();
});
