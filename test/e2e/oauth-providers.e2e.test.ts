import type { Page } from 'playwright-core';
import { loginAtOidcServer } from './support/flows';
import { GENERIC_NAME, startStack, type Stack } from './support/stack';

/**
 * Two OpenID Connect providers in one gateway, in Chromium: the GENERIC_* one and an
 * `OAUTH_PROVIDERS_CORP_SSO_…` one found by discovery, each a real oidc-provider process with its
 * own accounts, name and whitelist.
 */
let stack: Stack;

/** `/api/user` as this browser sees it (its own host mapping and cookies). */
async function userOf(page: Page): Promise<Record<string, unknown>> {
  await page.goto(`${stack.gatewayUrl}/api/user`);
  return JSON.parse(await page.innerText('body')) as Record<string, unknown>;
}

beforeAll(async () => {
  stack = await startStack({
    proxies: [],
    accounts: [{ username: 'alice' }],
    oidcAccounts: {
      olivia: { email: 'olivia@example.test', email_verified: true, name: 'Olivia Oauth', preferred_username: 'olivia' },
      cora: { email: 'cora@corp.test', email_verified: true, name: 'Cora at Example' },
    },
    moreProviders: [
      {
        id: 'corp-sso',
        name: 'Corp SSO',
        whitelist: '*@corp.test',
        accounts: {
          ben: { email: 'ben@corp.test', email_verified: true, name: 'Ben Corp' },
          eve: { email: 'eve@example.test', email_verified: true, name: 'Eve' },
        },
      },
    ],
  });
});

afterAll(async () => {
  await stack?.stop();
});

test('the login page has a button per provider, labelled with its configured name', async () => {
  const { context, page, problems } = await stack.newPage();
  await page.goto(`${stack.gatewayUrl}/login`);
  const buttons = page.locator('.oauth-list button');
  await buttons.first().waitFor();
  await expect(buttons.allTextContents()).resolves.toEqual([`Continue with ${GENERIC_NAME}`, 'Continue with Corp SSO']);
  expect(problems).toEqual([]);
  await context.close();
});

test.each([
  { button: GENERIC_NAME, issuer: () => stack.oidcIssuer ?? '', login: 'olivia', email: 'olivia@example.test', provider: 'generic' },
  { button: 'Corp SSO', issuer: () => stack.issuers['corp-sso'], login: 'ben', email: 'ben@corp.test', provider: 'corp-sso' },
])('logs in through $button and lands on the target as $email', async ({ button, issuer, login, email, provider }) => {
  const { context, page } = await stack.newPage();
  const target = `${stack.echoUrl}/after-${provider}`;
  await page.goto(`${stack.gatewayUrl}/login?redirect_uri=${encodeURIComponent(target)}`);
  await page.getByRole('button', { name: `Continue with ${button}` }).click();
  await loginAtOidcServer(page, issuer(), login);
  await page.waitForURL(target);
  expect(await userOf(page)).toMatchObject({ isLoggedIn: true, email, provider, oauth: true });
  await context.close();
});

test.each([
  { button: GENERIC_NAME, issuer: () => stack.oidcIssuer ?? '', login: 'cora', email: 'cora@corp.test' },
  { button: 'Corp SSO', issuer: () => stack.issuers['corp-sso'], login: 'eve', email: 'eve@example.test' },
])("refuses $email through $button, whose whitelist does not admit it (only the other provider's does)", async ({ button, issuer, login, email }) => {
  const { context, page } = await stack.newPage();
  await page.goto(`${stack.gatewayUrl}/login?redirect_uri=${encodeURIComponent(`${stack.echoUrl}/x`)}`);
  await page.getByRole('button', { name: `Continue with ${button}` }).click();
  await loginAtOidcServer(page, issuer(), login);
  await page.waitForURL(`${stack.gatewayUrl}/unauthorized?**`);
  expect(new URL(page.url()).searchParams.get('username')).toBe(email);
  expect((await userOf(page)).isLoggedIn).toBe(false);
  await context.close();
});
