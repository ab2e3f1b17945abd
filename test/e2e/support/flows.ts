import type { Locator, Page } from 'playwright-core';
import { generate } from 'otplib';
import type { Account } from './stack';

/** Fills and submits the password form the way a person would. */
export async function submitPassword(page: Page, login: string, password: string): Promise<void> {
  await page.getByLabel('Username or e-mail').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

/** The current code for an account's TOTP secret (a code one step ahead when `ahead`). */
export async function totpCode(account: Account, ahead = false): Promise<string> {
  if (account.totpSecret === undefined) throw new Error(`${account.username} has no TOTP secret`);
  const epoch = Math.floor(Date.now() / 1000) + (ahead ? 30 : 0);
  return generate({ secret: account.totpSecret, epoch });
}

/** The text the echo app shows for an identity header (`(none)` when it got none). */
export async function echoed(page: Page, header: 'remote-user' | 'remote-name' | 'remote-email' | 'remote-groups'): Promise<string> {
  return (await page.locator(`#${header}`).textContent()) ?? '';
}

/** The login page URL a proxy should send the browser to for `target`. */
export function loginUrlFor(gatewayUrl: string, target: string): string {
  return `${gatewayUrl}/login?redirect_uri=${encodeURIComponent(target)}`;
}

/** Whether the element has the keyboard focus (the test code has no DOM types; the page does). */
export function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => el === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);
}

/** Logs in at the test OIDC server's own login form (any password; consent is pre-granted there). */
export async function loginAtOidcServer(page: Page, issuer: string, login: string): Promise<void> {
  await page.waitForURL(`${issuer}/interaction/**`);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any');
  await page.locator('button[type="submit"]').click();
}
