import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as client from 'openid-client';
import { generate, generateSecret } from 'otplib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { hashOf } from '../support/credentials';
import { runCli } from '../support/process';
import { CHROMIUM_ARGS } from '../e2e/support/stack';
import { credentialsOf, hidePasskeys, virtualAuthenticator, type Authenticator } from '../e2e/support/webauthn';
import { HOSTS, OTHER_HOSTS, startExampleStack, type ExampleProxy, type ExampleStack } from './support/https-stack';

/**
 * What the README promises, done in Chromium as a person does it, over HTTPS through the shipped
 * nginx and Caddy examples (rendered and run as their instructions say, see support/https-stack.ts)
 * in front of the built gateway and an application that records every request: a password login
 * and a TOTP login that end in the application (which gets Remote-User), the account page and its
 * sessions, a passkey added on the account page and used to sign in, TOTP set up on the account
 * page, a passkey-only account's first-passkey link from the CLI, an OpenID Connect relying party's
 * authorization-code flow, and the hand-off to a second root domain. Chromium trusts the proxy's
 * certificate authority by its key (--ignore-certificate-errors-spki-list), so every page is a
 * secure context without certificate errors, as for a person whose browser trusts the site.
 */

const PASSWORD = (user: string): string => `${user}-Pa55word-examples!`;
const TOM_TOTP = generateSecret();
const RP = { id: 'examples-rp', secret: 'examples-rp-secret-0123456789-0123456789' };

/** Console errors that are expected: Chromium logs every 4xx answer (a wrong code, a refused passkey). */
const EXPECTED_CONSOLE_ERRORS = [/responded with a status of (400|401|403|404)\b/];

describe.each<ExampleProxy>(['nginx', 'caddy'])('examples/%s over HTTPS, in Chromium, as the README promises', (proxy) => {
  let stack: ExampleStack;
  let browser: Browser;
  let callback: Server;
  let callbackUrl = '';
  let enrolLink = '';

  beforeAll(async () => {
    // The relying party's callback: a real page on loopback (its code is redeemed by the test).
    callback = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('relying party callback'));
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;

    const password = (user: string): string => `password: "${hashOf(PASSWORD(user))}"`;
    stack = await startExampleStack(proxy, {
      users: [
        `{ username: tom, ${password('tom')}, totp_secret: ${TOM_TOTP} }`,
        `{ username: sam, ${password('sam')} }`,
        `{ username: pia, ${password('pia')} }`,
        `{ username: tess, ${password('tess')} }`,
        `{ username: hal, ${password('hal')} }`,
        '{ username: dora, name: Dora Passkey, passkey_only: true }',
      ],
      env: {
        LOG_LEVEL: 'info',
        OIDC_CLIENTS_RP_CLIENT_ID: RP.id,
        OIDC_CLIENTS_RP_CLIENT_SECRET: RP.secret,
        OIDC_CLIENTS_RP_REDIRECT_URIS: callbackUrl,
      },
      secondDomain: true,
      // The administrator's step of the README, before the gateway holds the embedded store.
      beforeStart: async (env) => {
        const keep = ['APP_URL', 'SECRET', 'USERS_FILE', 'DATA_DIR'] as const;
        const made = await runCli(['passkeys', 'enrol', 'dora'], { env: { ...Object.fromEntries(keep.map((k) => [k, env[k]])), LOG_LEVEL: 'silent' } });
        if (made.code !== 0) throw new Error(`portcullis passkeys enrol failed: ${made.stderr}`);
        enrolLink = made.stdout.split('\n').find((l) => l.startsWith(`https://${HOSTS.auth}:`)) ?? '';
      },
    });
    const args = CHROMIUM_ARGS.map((a) =>
      a.startsWith('--host-resolver-rules=') ? '--host-resolver-rules=MAP *.example.test 127.0.0.1, MAP *.other.test 127.0.0.1' : a,
    );
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: [...args, `--ignore-certificate-errors-spki-list=${stack.spkiHashes().join(',')}`],
    });
  }, 90_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await stack?.stop();
    await new Promise((resolve) => callback?.close(resolve));
  });

  const app = (path: string): string => `https://${HOSTS.app}:${stack.port}${path}`;
  const gatewayLog = (): string => readFileSync(join(stack.dir, 'gateway.log'), 'utf8');

  /** A fresh browser (own cookies); `problems` collects unexpected console and page errors. `passkeys` notes the login page's autofill request. */
  async function newPage(passkeys = false): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && !EXPECTED_CONSOLE_ERRORS.some((re) => re.test(m.text()))) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    if (passkeys)
      await page.addInitScript(`{
        const get = navigator.credentials.get.bind(navigator.credentials);
        navigator.credentials.get = (options) => {
          window.conditionalPending = options?.mediation === 'conditional';
          return get(options);
        };
      }`);
    return { context, page, problems };
  }

  async function submitPassword(page: Page, user: string, password = PASSWORD(user)): Promise<void> {
    await page.getByLabel('Username or e-mail').fill(user);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  /** After a login asked for by `target`: the continue page (DISABLE_CONTINUE is off) names it, and its link leads there. */
  async function backAt(page: Page, target: string): Promise<void> {
    await page.waitForURL(`${stack.appUrl}/continue?**`);
    expect(new URL(page.url()).searchParams.get('redirect_uri')).toBe(target);
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL(target);
  }

  /** What the application received for its page `path` on `host`, the last time. */
  function lastReceived(host: string, path: string): Record<string, unknown> | undefined {
    return stack.receivedAt(host, path).at(-1)?.headers;
  }

  /** What `/api/user` answers the page's browser. */
  async function currentUser(page: Page): Promise<Record<string, unknown>> {
    return page.evaluate(async () => (await fetch('/api/user')).json() as Promise<Record<string, unknown>>);
  }

  /** Logs in with a password on the login page, ending on the account page. */
  async function passwordLogin(page: Page, user: string): Promise<void> {
    await page.goto(`${stack.appUrl}/login`);
    await submitPassword(page, user);
    await page.waitForURL(`${stack.appUrl}/account`);
  }

  /** Logs out from the account page, the passkeys hidden from the login page's autofill (a person picks none); resolves what gives them back. */
  async function logOutHidingPasskeys(page: Page, a: Authenticator): Promise<() => Promise<void>> {
    const restore = await hidePasskeys(a);
    await page.goto(`${stack.appUrl}/account`);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${stack.appUrl}/login`);
    return restore;
  }

  /** Clicks "Sign in with a passkey" once the page's autofill request is pending, the passkeys given back first. */
  async function signInWithPasskey(page: Page, restore: () => Promise<void>): Promise<void> {
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
    await page.waitForFunction(() => (globalThis as unknown as { conditionalPending?: boolean }).conditionalPending === true);
    await restore();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  }

  it('password login: an anonymous visit to the application goes to the login page, and after the password the application opens with Remote-User', async () => {
    const { context, page, problems } = await newPage();
    const target = app('/password?x=1');
    await page.goto(target);
    await page.waitForURL(`${stack.appUrl}/login?**`);
    expect(new URL(page.url()).searchParams.get('redirect_uri')).toBe(target);
    expect(lastReceived(HOSTS.app, '/password?x=1')).toBeUndefined();
    await submitPassword(page, 'alice');
    await backAt(page, target);
    await expect(page.locator('body').textContent()).resolves.toContain('"app":"recorder"');
    expect(lastReceived(HOSTS.app, '/password?x=1')).toMatchObject({ 'remote-user': 'alice', 'remote-groups': 'admin', 'x-forwarded-proto': 'https' });
    expect(String(lastReceived(HOSTS.app, '/password?x=1')?.cookie ?? '')).not.toContain('portcullis-session');
    const session = (await context.cookies()).find((c) => c.name === 'portcullis-session');
    expect(session).toMatchObject({ domain: '.example.test', secure: true, httpOnly: true });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('TOTP login: the password, then the one-time code, then the application', async () => {
    const { context, page, problems } = await newPage();
    const target = app('/totp-login');
    await page.goto(target);
    await page.waitForURL(`${stack.appUrl}/login?**`);
    await submitPassword(page, 'tom');
    await page.waitForURL(`${stack.appUrl}/totp?**`);
    // The password alone opens nothing.
    const before = stack.receivedAt(HOSTS.app, '/totp-login').length;
    await page.getByLabel('One-time code').fill(await generate({ secret: TOM_TOTP }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await backAt(page, target);
    expect(before).toBe(0);
    expect(lastReceived(HOSTS.app, '/totp-login')).toMatchObject({ 'remote-user': 'tom' });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the account page lists where the person is signed in, this session marked, and signs another one out', async () => {
    const other = await newPage();
    await passwordLogin(other.page, 'sam');
    const { context, page, problems } = await newPage();
    await passwordLogin(page, 'sam');
    await page.getByRole('heading', { name: 'Where you are signed in' }).waitFor();
    await page.locator('.sessions li').nth(1).waitFor();
    await expect(page.locator('.sessions li').count()).resolves.toBe(2);
    await expect(page.locator('.sessions li', { hasText: '(this session)' }).count()).resolves.toBe(1);

    // Sign the other browser out from here: its next visit to the application goes to the login page.
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await page.locator('.sessions li').nth(1).waitFor({ state: 'detached' });
    await other.page.goto(app('/after-sign-out'));
    await other.page.waitForURL(`${stack.appUrl}/login?**`);
    expect(stack.receivedAt(HOSTS.app, '/after-sign-out')).toEqual([]);
    await page.goto(app('/still-in'));
    await page.waitForURL(app('/still-in'));
    expect(lastReceived(HOSTS.app, '/still-in')).toMatchObject({ 'remote-user': 'sam' });
    expect(problems).toEqual([]);
    await Promise.all([context.close(), other.context.close()]);
  });

  it('adds a passkey on the account page (the password asked again), logs out, signs in with the passkey, and reaches the application', async () => {
    const { context, page, problems } = await newPage(true);
    const authenticator = await virtualAuthenticator(page);
    await passwordLogin(page, 'pia');
    await page.getByLabel('Name for a new passkey').fill('Laptop');
    await page.getByLabel('Password, to confirm passkey changes').fill(PASSWORD('pia'));
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('.passkey-name', { hasText: 'Laptop' }).waitFor();
    expect(await credentialsOf(authenticator)).toEqual([expect.objectContaining({ rpId: 'example.test', isResidentCredential: true })]);

    const restore = await logOutHidingPasskeys(page, authenticator);
    expect(await currentUser(page)).toMatchObject({ isLoggedIn: false });
    await signInWithPasskey(page, restore);
    await page.waitForURL(`${stack.appUrl}/account`);
    expect(await currentUser(page)).toMatchObject({ isLoggedIn: true, username: 'pia' });
    expect(gatewayLog()).toMatch(/"method":"passkey"[^\n]*"username":"pia"|"username":"pia"[^\n]*"method":"passkey"/);

    await page.goto(app('/after-passkey'));
    await page.waitForURL(app('/after-passkey'));
    expect(lastReceived(HOSTS.app, '/after-passkey')).toMatchObject({ 'remote-user': 'pia' });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('sets up TOTP on the account page; the next login asks for the code before the application opens', async () => {
    const { context, page, problems } = await newPage();
    await passwordLogin(page, 'tess');
    await page.locator('#totp-setup').click();
    const field = page.getByLabel('Code from your app');
    await field.waitFor();
    const secret = (await page.locator('#totp-secret').getAttribute('data-secret')) ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    // The section's own password field (the passkeys section has one too).
    await page.locator('#totp-section').getByLabel('Your password').fill(PASSWORD('tess'));
    await field.fill(await generate({ secret }));
    await field.press('Enter');
    await page.locator('#totp-enrolled').waitFor();
    await expect(page.locator('#totp-status').textContent()).resolves.toContain('Two-step code turned on');

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${stack.appUrl}/login**`);
    const target = app('/after-totp-setup');
    await page.goto(target);
    await page.waitForURL(`${stack.appUrl}/login?**`);
    await submitPassword(page, 'tess');
    await page.waitForURL(`${stack.appUrl}/totp?**`);
    // The code of the next step: the one just used to turn TOTP on is spent.
    await page.getByLabel('One-time code').fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await backAt(page, target);
    expect(stack.receivedAt(HOSTS.app, '/after-totp-setup')).toHaveLength(1);
    expect(lastReceived(HOSTS.app, '/after-totp-setup')).toMatchObject({ 'remote-user': 'tess' });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("opens a passkey-only account's first-passkey link (portcullis passkeys enrol), registers, and is signed in to the application", async () => {
    expect(enrolLink).toMatch(new RegExp(`^${stack.appUrl.replace(/\./g, '\\.')}/enrol#[A-Za-z0-9_-]{40,}$`));
    const { context, page, problems } = await newPage(true);
    const authenticator = await virtualAuthenticator(page);
    await page.goto(enrolLink);
    await page.getByRole('heading', { name: 'Set up your passkey' }).waitFor();
    expect(page.url()).toBe(`${stack.appUrl}/enrol`);
    await page.getByLabel('Name for this passkey').fill('Phone');
    await page.getByRole('button', { name: 'Create my passkey' }).click();
    await page.waitForURL(`${stack.appUrl}/account`);
    expect(await currentUser(page)).toMatchObject({ isLoggedIn: true, username: 'dora' });
    expect(await credentialsOf(authenticator)).toHaveLength(1);

    await page.goto(app('/after-enrol'));
    await page.waitForURL(app('/after-enrol'));
    expect(lastReceived(HOSTS.app, '/after-enrol')).toMatchObject({ 'remote-user': 'dora', 'remote-name': 'Dora Passkey' });

    // Signed out, the passkey signs dora in again.
    const restore = await logOutHidingPasskeys(page, authenticator);
    await signInWithPasskey(page, restore);
    await page.waitForURL(`${stack.appUrl}/account`);
    expect(await currentUser(page)).toMatchObject({ isLoggedIn: true, username: 'dora' });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("runs an OpenID Connect relying party's authorization-code flow through the proxy: discovery, login in the browser, code, tokens, userinfo", async () => {
    // The relying party talks to the provider through the proxy, over HTTPS, as it would on the internet.
    const throughProxy: client.CustomFetch = async (url, options) => {
      const target = new URL(url);
      const headers = Object.fromEntries(new Headers(options.headers as ConstructorParameters<typeof Headers>[0]).entries());
      const body = options.body === undefined || options.body === null ? undefined : String(options.body);
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const answer = await stack.fetch(target.hostname, `${target.pathname}${target.search}`, { method: options.method, headers, body });
      const out = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) for (const v of [value ?? []].flat()) out.append(name, v);
      return new Response(answer.body === '' ? null : answer.body, { status: answer.status, headers: out });
    };
    // The client is registered for client_secret_basic (the default); a secret posted in the form is refused (issue 29 item 13).
    const config = await client.discovery(new URL(stack.appUrl), RP.id, RP.secret, client.ClientSecretBasic(RP.secret), { [client.customFetch]: throughProxy });
    config[client.customFetch] = throughProxy;
    expect(config.serverMetadata().issuer).toBe(stack.appUrl);
    expect(config.serverMetadata().authorization_endpoint).toMatch(new RegExp(`^${stack.appUrl.replace(/\./g, '\\.')}/`));

    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const authorization = client.buildAuthorizationUrl(config, {
      redirect_uri: callbackUrl,
      scope: 'openid email profile groups',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });

    const { context, page, problems } = await newPage();
    await page.goto(authorization.href);
    await page.waitForURL(`${stack.appUrl}/login?**`);
    await submitPassword(page, 'alice');
    await page.waitForURL((u) => u.href.startsWith(`${callbackUrl}?`), { waitUntil: 'load' });
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(stack.appUrl);

    const tokens = await client.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: state });
    const claims = tokens.claims();
    expect(claims).toMatchObject({ iss: stack.appUrl, aud: RP.id });
    const info = await client.fetchUserInfo(config, tokens.access_token, claims?.sub ?? '');
    expect(info).toMatchObject({ preferred_username: 'alice', groups: ['admin'] });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('hands the login over to the second root domain: one password on the primary opens an application on app.other.test', async () => {
    const { context, page, problems } = await newPage();
    const target = `https://${OTHER_HOSTS.app}:${stack.port}/handoff?y=2`;
    const seen: string[] = [];
    page.on('request', (r) => seen.push(r.url()));
    await page.goto(target);
    // The login page belongs to the primary.
    await page.waitForURL(`${stack.appUrl}/login?**`);
    await submitPassword(page, 'hal');
    // The continue page goes on with the hand-off: the primary issues the code for other.test.
    await page.waitForURL(`${stack.appUrl}/continue?**`);
    const next = new URL(new URL(page.url()).searchParams.get('redirect_uri') ?? '');
    expect(`${next.origin}${next.pathname}`).toBe(`${stack.appUrl}/api/handoff/issue`);
    expect(next.searchParams.get('domain')).toBe('other.test');
    expect(next.searchParams.get('redirect_uri')).toBe(target);
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL(target);
    expect(lastReceived(OTHER_HOSTS.app, '/handoff?y=2')).toMatchObject({ 'remote-user': 'hal', 'x-forwarded-proto': 'https' });
    // Through the second domain's own login host, the code alone in the URL.
    const redeem = seen.find((u) => u.startsWith(`${stack.otherUrl}/api/handoff/redeem?`));
    expect([...new URL(redeem ?? 'https://missing.invalid/').searchParams.keys()]).toEqual(['code']);
    const sessions = (await context.cookies()).filter((c) => c.name === 'portcullis-session');
    expect(sessions.map((c) => c.domain).sort()).toEqual(['.example.test', '.other.test']);
    expect(sessions.every((c) => c.secure)).toBe(true);

    // The primary's application too, without typing again.
    await page.goto(app('/handoff-primary'));
    await page.waitForURL(app('/handoff-primary'));
    expect(lastReceived(HOSTS.app, '/handoff-primary')).toMatchObject({ 'remote-user': 'hal' });
    expect(problems).toEqual([]);
    await context.close();
  });
});
