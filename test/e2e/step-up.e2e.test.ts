import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { submitPassword, totpCode } from './support/flows';
import { cardScreenshot, screenshotDir, siteBehind } from './support/screenshots';
import { startStack, type Account, type ProxyName, type Site, type Stack } from './support/stack';
import { currentUser, virtualAuthenticator } from './support/webauthn';

/**
 * Step-up (issue 33) in Chromium through real nginx and Caddy: the access rules give the protected
 * app two `paths` entries, `^/admin` (a second factor proven at most two seconds ago) and
 * `^/vault` (a passkey, however fresh a code is). A session whose code is older than that is sent
 * to the login page's step-up mode, which asks only for what is missing; after it the browser is
 * back on the page it asked for, the upstream serves it, and the session is the same one (its id
 * on the account page). Wrong answers, a lock, and a reference that is not one are told; the page
 * and the account page's "How you signed in" render in all 11 languages, light, dark and phone
 * width. Screenshots go to SCREENSHOT_DIR (`npm run screenshots`: docs/screenshots).
 */

const PROXIES: readonly ProxyName[] = ['nginx', 'caddy'];
/** The `max_age` of `/admin`, in seconds: a login older than this is asked for a fresh code. */
const MAX_AGE_S = 2;
const LANGUAGES = ['en', 'de', 'fr', 'es', 'pt-BR', 'it', 'nl', 'pl', 'ja', 'zh-Hans', 'ar'] as const;
const VARIANTS = [
  { name: 'light', colorScheme: 'light', width: 800, height: 720 },
  { name: 'dark', colorScheme: 'dark', width: 800, height: 720 },
  { name: 'phone-light', colorScheme: 'light', width: 390, height: 780 },
] as const;

type Catalog = Record<string, string | Record<string, string>>;
const catalog = (tag: string): Catalog => JSON.parse(readFileSync(join(__dirname, '..', '..', 'ui', 'locales', `${tag}.json`), 'utf8')) as Catalog;
function text(tag: string, key: string): string {
  const message = catalog(tag)[key];
  if (typeof message !== 'string') throw new Error(`${tag}: ${key} is not a plain text`);
  return message;
}

let stack: Stack;
let shots: string;
let rulesDir: string;

beforeAll(async () => {
  rulesDir = mkdtempSync(join(tmpdir(), 'portcullis-step-up-rules-'));
  const rules = join(rulesDir, 'access.yaml');
  writeFileSync(
    rules,
    [
      'apps:',
      '  app:',
      '    domain: [app-nginx.example.test, app-caddy.example.test]',
      '    response: { assertion: true }',
      '    paths:',
      '      - match: "^/admin"',
      `        require: { second_factor: true, max_age: ${MAX_AGE_S} }`,
      '      - match: "^/vault"',
      '        require: { login: [passkey] }',
      '',
    ].join('\n'),
  );
  stack = await startStack({
    proxies: PROXIES,
    accounts: [
      ...PROXIES.flatMap((p) => [
        { username: `code-${p}`, totp: true },
        { username: `key-${p}`, totp: true },
        { username: `assert-${p}`, totp: true },
      ]),
      { username: 'wrong', totp: true },
      { username: 'locked', totp: true },
      ...LANGUAGES.map((tag) => ({ username: `lang-${tag}`, totp: true })),
      ...VARIANTS.map((v) => ({ username: `shot-${v.name}`, totp: true })),
    ],
    env: { ACCESS_CONFIG: rules, LOGIN_MAX_RETRIES: '3', LOGIN_TIMEOUT: '300' },
    chromiumArgs: (gatewayUrl) => [`--unsafely-treat-insecure-origin-as-secure=${gatewayUrl}`],
  });
  shots = screenshotDir(stack);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(rulesDir, { recursive: true, force: true });
});

const stepUpPage = (): RegExp => new RegExp(`^${stack.gatewayUrl.replace(/[.]/g, '\\.')}/login\\?step_up=`);

/** Logs in at the gateway with the password and the current code, as a person does. */
async function logInWithCode(page: Page, account: Account): Promise<void> {
  await page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(page, account.username, account.password);
  await page.waitForURL(`${stack.gatewayUrl}/totp**`);
  await page.getByLabel('One-time code').fill(await totpCode(account));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL(`${stack.gatewayUrl}/account`);
}

/** The same, through the gateway's API from one of its pages (the browser's cookies): for the many-language checks. */
async function logInQuietly(page: Page, account: Account): Promise<void> {
  await page.goto(`${stack.gatewayUrl}/forgot-password`);
  const statuses = await page.evaluate(
    async ({ email, password, code }) => {
      const post = async (path: string, body: unknown): Promise<number> =>
        (await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status;
      return [await post('/api/login', { email, password }), await post('/api/totp', { code })];
    },
    { email: account.username, password: account.password, code: await totpCode(account) },
  );
  expect(statuses).toEqual([200, 200]);
}

/** The id of the session this browser holds, as the account page's list marks it. */
async function currentSessionId(page: Page): Promise<string> {
  const account = await page.evaluate(async () => (await fetch('/api/account')).json() as Promise<{ sessions: { id: string; current: boolean }[] }>);
  const current = account.sessions.filter((s) => s.current);
  expect(current).toHaveLength(1);
  return current[0].id;
}

/** Waits until the login is older than `/admin`'s `max_age`. */
const outlive = (page: Page): Promise<void> => page.waitForTimeout(MAX_AGE_S * 1000 + 600);

/** The step-up page's fields and button that are on it. */
async function offered(page: Page): Promise<{ password: number; code: number; passkey: number }> {
  await page.locator('#step-up-account').waitFor();
  return {
    password: await page.locator('#step-up-password').count(),
    code: await page.locator('#step-up-code').count(),
    passkey: await page.locator('#step-up-passkey').count(),
  };
}

/** The path (and query) the upstream app was asked for, as it shows it (nginx passes the host without its port). */
async function upstreamPath(page: Page, site: Site): Promise<string> {
  const where = (await page.locator('#where').textContent()) ?? '';
  expect(where.startsWith(site.host)).toBe(true);
  return where.slice(where.indexOf('/'));
}

/** How far the page overflows its window sideways (0: nothing is cut off or scrolls). */
const overflow = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
    return doc.documentElement.scrollWidth - doc.documentElement.clientWidth;
  });

describe.each(PROXIES)('through %s', (proxy) => {
  test("the upstream's Remote-Assertion tells the step-up at once: new auth_time and amr, never the assertion of before", async () => {
    const site = siteBehind(stack, proxy);
    const account = stack.accounts[`assert-${proxy}`];
    const { context, page, problems } = await stack.newPage();
    /** The claims of the assertion the upstream received for `path` (the browser's cookies, through the proxy; a fresh request, not a cached page). */
    const assertionAt = async (path: string): Promise<Record<string, unknown>> => {
      // The hosts resolve inside Chromium only: the browser goes there, and the test reads the JSON it shows.
      const res = await page.goto(`${site.url}${path}${path.includes('?') ? '&' : '?'}format=json`);
      expect(res?.status()).toBe(200);
      const token = (JSON.parse(await page.locator('body').innerText()) as { assertion: string | null }).assertion ?? '';
      return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    };
    const loggedInAt = Math.floor(Date.now() / 1000);
    await logInWithCode(page, account);
    const before = await assertionAt('/admin/fresh');
    expect(before).toMatchObject({ preferred_username: account.username, amr: ['pwd', 'otp', 'mfa'], acr: 'mfa' });
    expect(before.auth_time).toBeGreaterThanOrEqual(loggedInAt);

    await outlive(page);
    await page.goto(`${site.url}/admin/later`);
    await page.waitForURL(stepUpPage());
    const provedAt = Math.floor(Date.now() / 1000);
    await page.getByLabel('One-time code').fill(await totpCode(account, true));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(`${site.url}/admin/later`);
    // Every path of the app, /admin or not, now gets the assertion of the stepped-up session.
    for (const path of ['/admin/later', '/elsewhere']) {
      const after = await assertionAt(path);
      expect(after.auth_time).toBeGreaterThanOrEqual(provedAt);
      expect(after.auth_time).toBeGreaterThan(before.auth_time as number);
      expect(after).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'mfa' });
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  test('a code older than max_age opening /admin is asked for a fresh code only; then /admin is served, same session', async () => {
    const site = siteBehind(stack, proxy);
    const account = stack.accounts[`code-${proxy}`];
    const { context, page, problems } = await stack.newPage();
    await logInWithCode(page, account);
    const before = await currentSessionId(page);
    const provenBefore = (await currentUser(page)).proven as Record<string, number>;
    expect(Object.keys(provenBefore).sort()).toEqual(['password', 'totp']);

    // Fresh enough: straight through.
    await page.goto(`${site.url}/admin/fresh`);
    await expect(upstreamPath(page, site)).resolves.toBe('/admin/fresh');

    await outlive(page);
    await page.goto(`${site.url}/admin/settings?tab=2`);
    await page.waitForURL(stepUpPage());
    await expect(offered(page)).resolves.toEqual({ password: 0, code: 1, passkey: 0 });
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe("Confirm it's you");
    await expect(page.locator('.lead').textContent()).resolves.toContain(`${site.host}:${site.port}`);

    await page.getByLabel('One-time code').fill(await totpCode(account, true));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(`${site.url}/admin/settings?tab=2`);
    await expect(upstreamPath(page, site)).resolves.toBe('/admin/settings?tab=2');
    await expect(page.locator('#remote-user').textContent()).resolves.toBe(account.username);

    await page.goto(`${stack.gatewayUrl}/account`);
    await expect(currentSessionId(page)).resolves.toBe(before);
    const provenAfter = (await currentUser(page)).proven as Record<string, number>;
    expect(provenAfter.password).toBe(provenBefore.password);
    expect(provenAfter.totp).toBeGreaterThan(provenBefore.totp);
    expect(problems).toEqual([]);
    await context.close();
  });

  test('a passkey-only path asks for the passkey (not the code the account also has); then the page is reached', async () => {
    const site = siteBehind(stack, proxy);
    const account = stack.accounts[`key-${proxy}`];
    const { context, page, problems } = await stack.newPage();
    await virtualAuthenticator(page);
    await logInWithCode(page, account);
    await page.getByLabel('Name for a new passkey').fill('Laptop');
    await page.getByLabel('Password, to confirm passkey changes').fill(account.password);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('.passkey-name', { hasText: 'Laptop' }).waitFor();
    const before = await currentSessionId(page);

    await page.goto(`${site.url}/vault/box`);
    await page.waitForURL(stepUpPage());
    await expect(offered(page)).resolves.toEqual({ password: 0, code: 0, passkey: 1 });
    if (proxy === 'nginx') await cardScreenshot(page, join(shots, 'step-up-passkey.png'));
    // A code, however fresh, is not an answer this step-up takes.
    const ref = new URL(page.url()).searchParams.get('step_up');
    const byCode = await page.evaluate(
      async ({ ref, code }) => {
        const res = await fetch('/api/step-up', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ref, method: 'totp', code }),
        });
        return { status: res.status, code: ((await res.json()) as { code: string }).code };
      },
      { ref, code: await totpCode(account, true) },
    );
    expect(byCode).toEqual({ status: 400, code: 'step_up_method' });

    await page.getByRole('button', { name: 'Use my passkey' }).click();
    await page.waitForURL(`${site.url}/vault/box`);
    await expect(upstreamPath(page, site)).resolves.toBe('/vault/box');
    await page.goto(`${stack.gatewayUrl}/account`);
    await expect(currentSessionId(page)).resolves.toBe(before);
    expect(Object.keys((await currentUser(page)).proven as Record<string, number>)).toContain('passkey');
    await expect(page.locator('#proven dt[data-method="passkey"]').textContent()).resolves.toBe('Passkey');
    await expect(page.locator('#proven-level').textContent()).resolves.toBe('Two factors, phishing-resistant');
    expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
    await context.close();
  });
});

describe('answers that do not work', () => {
  test('a wrong code is said and can be retried; the lock is said with its wait', async () => {
    const site = siteBehind(stack, 'nginx');
    const account = stack.accounts.locked;
    const { context, page } = await stack.newPage();
    await logInWithCode(page, account);
    await outlive(page);
    await page.goto(`${site.url}/admin`);
    await page.waitForURL(stepUpPage());
    const alert = page.getByRole('alert');
    for (let i = 0; i < 3; i += 1) {
      await page.getByLabel('One-time code').fill(i % 2 === 0 ? '000000' : '111111');
      await page.getByRole('button', { name: 'Confirm' }).click();
      await expect(alert.textContent()).resolves.toBe(text('en', 'totp.totp_invalid'));
      await expect(page.getByLabel('One-time code').getAttribute('aria-invalid')).resolves.toBe('true');
    }
    await page.getByLabel('One-time code').fill(await totpCode(account, true));
    await page.getByRole('button', { name: 'Confirm' }).click();
    const locked = /^Too many failed login attempts\. Try again in \d+ minutes?\.$/;
    for (let i = 0; i < 50 && !locked.test((await alert.textContent()) ?? ''); i += 1) await page.waitForTimeout(100);
    await expect(alert.textContent()).resolves.toMatch(locked);
    await context.close();
  });

  test('a reference that is not one offers a normal login', async () => {
    const { context, page } = await stack.newPage();
    await logInWithCode(page, stack.accounts.wrong);
    await page.goto(`${stack.gatewayUrl}/login?step_up=not-a-reference`);
    await expect(page.getByRole('alert').textContent()).resolves.toBe(text('en', 'stepUp.expired'));
    await page.getByRole('link', { name: 'Log in again' }).click();
    await page.getByLabel('Username or e-mail').waitFor();
    await context.close();
  });

  test('without a session the page says so and offers a login', async () => {
    const { context, page } = await stack.newPage();
    await page.goto(`${stack.gatewayUrl}/login?step_up=anything`);
    await expect(page.getByRole('alert').textContent()).resolves.toBe(text('en', 'stepUp.sessionEnded'));
    await expect(page.getByRole('link', { name: 'Log in again' }).getAttribute('href')).resolves.toBe('/login?prompt=login');
    await context.close();
  });
});

describe('in every language, at phone width', () => {
  test.each(LANGUAGES)('%s: the step-up page and "How you signed in"', async (tag) => {
    const site = siteBehind(stack, 'caddy');
    const { context, page, problems } = await stack.newPage({ locale: tag, width: 390, height: 780 });
    await logInQuietly(page, stack.accounts[`lang-${tag}`]);
    await page.goto(`${stack.gatewayUrl}/account`);
    await expect(page.locator('#proven-heading').textContent()).resolves.toBe(text(tag, 'account.provenHeading'));
    await expect(page.locator('#proven dt[data-method="totp"]').textContent()).resolves.toBe(text(tag, 'account.proven.totp'));
    await expect(page.locator('#proven-level').textContent()).resolves.toBe(text(tag, 'account.acr.mfa'));
    await expect(overflow(page)).resolves.toBeLessThanOrEqual(0);

    await outlive(page);
    await page.goto(`${site.url}/admin`);
    await page.waitForURL(stepUpPage());
    await expect(offered(page)).resolves.toEqual({ password: 0, code: 1, passkey: 0 });
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(text(tag, 'stepUp.heading'));
    await expect(page.getByLabel(text(tag, 'totp.code')).count()).resolves.toBe(1);
    await expect(page.getByRole('button', { name: text(tag, 'stepUp.confirm') }).count()).resolves.toBe(1);
    await expect(page.evaluate(() => (globalThis as unknown as { document: { documentElement: { dir: string } } }).document.documentElement.dir)).resolves.toBe(
      tag === 'ar' ? 'rtl' : 'ltr',
    );
    await expect(overflow(page)).resolves.toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('screenshots', () => {
  test.each(VARIANTS)('the step-up page and "How you signed in", $name', async ({ name, colorScheme, width, height }) => {
    const site = siteBehind(stack, 'nginx');
    const { context, page, problems } = await stack.newPage({ colorScheme, width, height });
    await logInQuietly(page, stack.accounts[`shot-${name}`]);
    await page.goto(`${stack.gatewayUrl}/account`);
    await page.locator('#proven-section').screenshot({ path: join(shots, `account-proven-${name}.png`), animations: 'disabled', caret: 'hide' });
    await outlive(page);
    await page.goto(`${site.url}/admin`);
    await page.waitForURL(stepUpPage());
    await page.locator('#step-up-code').waitFor();
    await cardScreenshot(page, join(shots, `step-up-${name}.png`));
    await expect(overflow(page)).resolves.toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
