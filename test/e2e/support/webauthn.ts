import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import type { Stack } from './stack';

/**
 * Passkeys in Chromium for the e2e tests: the DevTools protocol's virtual authenticator, and pages
 * that tell when the login page has started its autofill request.
 */

export interface Authenticator {
  readonly cdp: CDPSession;
  readonly id: string;
}

/** A virtual platform authenticator (resident keys, user verification) for the page's browser context. */
export async function virtualAuthenticator(page: Page): Promise<Authenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}

/** A passkey as the authenticator holds it (the fields the tests read, of CDP's WebAuthn.Credential). */
export interface HeldCredential {
  readonly credentialId: string;
  readonly rpId?: string;
  readonly isResidentCredential: boolean;
  readonly signCount: number;
  readonly privateKey: string;
}

/** The passkeys an authenticator holds. */
export async function credentialsOf(a: Authenticator): Promise<HeldCredential[]> {
  return (await a.cdp.send('WebAuthn.getCredentials', { authenticatorId: a.id })).credentials;
}

/**
 * Chromium's virtual authenticator answers a conditional (autofill) request at once when it holds
 * a passkey for the site. Takes the passkeys away (the login page's autofill then waits, as for a
 * person who does not pick a suggestion); resolves what gives them back.
 */
export async function hidePasskeys(a: Authenticator): Promise<() => Promise<void>> {
  const held = (await a.cdp.send('WebAuthn.getCredentials', { authenticatorId: a.id })).credentials;
  await a.cdp.send('WebAuthn.clearCredentials', { authenticatorId: a.id });
  return async () => {
    for (const credential of held) await a.cdp.send('WebAuthn.addCredential', { authenticatorId: a.id, credential });
  };
}

/** A page that notes, in `window.conditionalPending`, when it has started a passkey autofill request. */
export async function newPasskeyPage(stack: Stack): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const opened = await stack.newPage();
  // A string: the tests compile without the DOM's types (an init script, not an eval: the CSP allows it).
  await opened.page.addInitScript(`{
    const get = navigator.credentials.get.bind(navigator.credentials);
    navigator.credentials.get = (options) => {
      window.conditionalPending = options?.mediation === 'conditional';
      return get(options);
    };
  }`);
  return opened;
}

/** Whether the page has started its autofill request (see newPasskeyPage). */
export async function conditionalPending(page: Page): Promise<boolean> {
  return (await page.evaluate(() => (globalThis as unknown as { conditionalPending?: boolean }).conditionalPending)) === true;
}

/** What `/api/user` answers the page's browser. */
export async function currentUser(page: Page): Promise<Record<string, unknown>> {
  return page.evaluate(async () => (await fetch('/api/user')).json() as Promise<Record<string, unknown>>);
}

/** Logs out from the account page, the authenticator's passkeys hidden from the login page's autofill; resolves what gives them back. */
export async function logOutHidingPasskeys(stack: Stack, page: Page, a: Authenticator): Promise<() => Promise<void>> {
  const restore = await hidePasskeys(a);
  await page.goto(`${stack.gatewayUrl}/account`);
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/login`);
  return restore;
}
