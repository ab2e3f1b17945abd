import type { Page } from 'playwright-core';
import { echoed, isFocused, loginAtOidcServer, loginUrlFor, submitPassword, totpCode } from './support/flows';
import { rawRequest } from '../support/http';
import { GENERIC_NAME, startStack, type Account, type ProxyName, type Site, type Stack } from './support/stack';

const PROXIES: readonly ProxyName[] = ['nginx', 'caddy'];

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    proxies: PROXIES,
    accounts: PROXIES.flatMap((p) => [{ username: `alice-${p}` }, { username: `bob-${p}`, totp: true }, { username: `carol-${p}` }]),
    oidcAccounts: {
      olivia: { email: 'olivia@example.test', email_verified: true, name: 'Olivia Oauth', preferred_username: 'olivia', groups: ['admins', 'dev'] },
    },
  });
});

afterAll(async () => {
  await stack?.stop();
});

/** Logs `account` in from a protected page of `site` and clicks through the continue page. */
async function loginThrough(page: Page, site: Site, account: Account, path = '/'): Promise<void> {
  await page.goto(`${site.url}${path}`);
  await page.waitForURL(`${stack.gatewayUrl}/login?**`);
  await submitPassword(page, account.username, account.password);
  await page.waitForURL(`${stack.gatewayUrl}/continue?**`);
  await page.getByRole('link', { name: 'Continue' }).click();
  await page.waitForURL(`${site.url}${path}`);
}

describe.each(PROXIES)('through %s', (proxy) => {
  const site = (): Site => {
    const s = stack.sites[proxy];
    if (s === undefined) throw new Error(`${proxy} is not running`);
    return s;
  };
  const account = (name: string): Account => stack.accounts[`${name}-${proxy}`];

  test('an unauthenticated visit lands on the login page, and a password login returns to the app with the right Remote-User', async () => {
    const { context, page, problems } = await stack.newPage();
    const target = `${site().url}/reports/2026?sort=desc`;
    await page.goto(target);
    await page.waitForURL(`${stack.gatewayUrl}/login?**`);
    expect(page.url()).toBe(loginUrlFor(stack.gatewayUrl, target));
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Log in');
    await expect(page.locator('.lead strong').textContent()).resolves.toBe(`${site().host}:${site().port}`);

    const alice = account('alice');
    await submitPassword(page, alice.username, alice.password);
    await page.waitForURL(`${stack.gatewayUrl}/continue?**`);
    await expect(page.locator('.target').textContent()).resolves.toBe(target);
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL(target);

    expect(await echoed(page, 'remote-user')).toBe(alice.username);
    expect(await echoed(page, 'remote-email')).toBe(`${alice.username}@example.test`);
    expect(problems).toEqual([]);
    await context.close();
  });

  test('a TOTP account goes through the code page, where a wrong code is refused and the right one reaches the app', async () => {
    const { context, page, problems } = await stack.newPage();
    const target = `${site().url}/totp-protected`;
    await page.goto(target);
    await page.waitForURL(`${stack.gatewayUrl}/login?**`);
    const bob = account('bob');
    await submitPassword(page, bob.username, bob.password);
    await page.waitForURL(`${stack.gatewayUrl}/totp?**`);
    expect(new URL(page.url()).searchParams.get('redirect_uri')).toBe(target);

    const code = page.getByLabel('One-time code');
    await expect(code.getAttribute('autocomplete')).resolves.toBe('one-time-code');
    await expect(isFocused(code)).resolves.toBe(true);
    const right = await totpCode(bob);
    // The answer's code tells a wrong code from a timed-out login: no second request to find out.
    const userCalls: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/user') userCalls.push(r.url());
    });
    await code.fill(right === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('That code is not right');
    expect(userCalls).toEqual([]);
    await expect(code.getAttribute('aria-invalid')).resolves.toBe('true');

    await code.fill(right);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${stack.gatewayUrl}/continue?**`);
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL(target);
    expect(await echoed(page, 'remote-user')).toBe(bob.username);
    expect(problems).toEqual([]);
    await context.close();
  });

  test('an OAuth login with the generic provider (a real OIDC server) returns to the app with the e-mail as Remote-User and the groups', async () => {
    const { context, page } = await stack.newPage();
    const target = `${site().url}/via-oauth?tab=1`;
    await page.goto(target);
    await page.waitForURL(`${stack.gatewayUrl}/login?**`);
    await page.getByRole('button', { name: `Continue with ${GENERIC_NAME}` }).click();
    await loginAtOidcServer(page, stack.oidcIssuer ?? '', 'olivia');
    await page.waitForURL(target);
    expect(await echoed(page, 'remote-user')).toBe('olivia@example.test');
    expect(await echoed(page, 'remote-name')).toBe('Olivia Oauth');
    expect(await echoed(page, 'remote-groups')).toBe('admins,dev');

    await page.goto(`${stack.gatewayUrl}/account`);
    await expect(page.locator('#who-you-are').textContent()).resolves.toContain(`Logged in with${GENERIC_NAME}`);
    await context.close();
  });

  test('a wrong password shows a clear message and keeps the person on the login page with the redirect', async () => {
    const { context, page } = await stack.newPage();
    const target = `${site().url}/wrong`;
    await page.goto(target);
    await page.waitForURL(`${stack.gatewayUrl}/login?**`);
    const carol = account('carol');
    await submitPassword(page, carol.username, 'not-the-password');
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Wrong username or password. Check both and try again.');
    expect(page.url()).toBe(loginUrlFor(stack.gatewayUrl, target));
    await expect(page.getByLabel('Password').inputValue()).resolves.toBe('');
    await expect(isFocused(page.getByLabel('Password'))).resolves.toBe(true);
    await context.close();
  });

  test('after logging out, the protected page sends the browser to the login page again', async () => {
    const { context, page, problems } = await stack.newPage();
    const alice = account('alice');
    await loginThrough(page, site(), alice, '/before-logout');

    await page.goto(`${stack.gatewayUrl}/account`);
    await expect(page.locator('#current-user').textContent()).resolves.toBe(alice.username);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${stack.gatewayUrl}/login`);

    await page.goto(`${site().url}/after-logout`);
    await page.waitForURL(`${stack.gatewayUrl}/login?**`);
    expect(page.url()).toBe(loginUrlFor(stack.gatewayUrl, `${site().url}/after-logout`));
    expect(problems).toEqual([]);
    await context.close();
  });

  test('a direct visit to /login when already logged in goes on to the continue page, or to the account page without a redirect', async () => {
    const { context, page } = await stack.newPage();
    const alice = account('alice');
    await loginThrough(page, site(), alice);

    const target = `${site().url}/again`;
    await page.goto(loginUrlFor(stack.gatewayUrl, target));
    await page.waitForURL(`${stack.gatewayUrl}/continue?**`);
    await expect(page.locator('.target').textContent()).resolves.toBe(target);

    await page.goto(`${stack.gatewayUrl}/login`);
    await page.waitForURL(`${stack.gatewayUrl}/account`);
    await expect(page.locator('#current-user').textContent()).resolves.toBe(alice.username);
    await context.close();
  });

  test("Remote-* headers sent by the browser never reach the app: only the gateway's identity does", async () => {
    const { context, page } = await stack.newPage();
    const alice = account('alice');
    await loginThrough(page, site(), alice);
    await context.setExtraHTTPHeaders({ 'Remote-User': 'mallory', 'Remote-Groups': 'admins' });
    await page.goto(`${site().url}/spoof`);
    expect(await echoed(page, 'remote-user')).toBe(alice.username);
    expect(await echoed(page, 'remote-groups')).toBe('(none)');
    await context.close();
  });

  test('an API client (no text/html in Accept) gets a 401 JSON answer instead of a redirect', async () => {
    const res = await rawRequest(site().port, `${site().host}:${site().port}`, '/api-call', { accept: 'application/json' });
    expect(res.status).toBe(401);
    expect(res.headers.location).toBeUndefined();
    expect(JSON.parse(res.body)).toEqual({ status: 401, code: 'unauthorized', message: 'Unauthorized' });
  });

  test('a browser request without a session is redirected to the login page with its URL as redirect_uri', async () => {
    const res = await rawRequest(site().port, `${site().host}:${site().port}`, '/page?a=1&b=2', { accept: 'text/html,application/xhtml+xml' });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(loginUrlFor(stack.gatewayUrl, `${site().url}/page?a=1&b=2`));
  });
});
