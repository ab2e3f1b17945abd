import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { isFocused, submitPassword } from './support/flows';
import { screenshotDir } from './support/screenshots';
import { startStack, type Stack } from './support/stack';

/**
 * The account page's "Access tokens" section (issue 32) in Chromium: a token made on the page
 * (scoped to one application, or to all) is shown once, passes forward auth as its owner, and is
 * refused right after it is revoked on the page; the form says what is wrong in place; TOKENS=false
 * leaves no section; and the section speaks every UI language (one page load each). Screenshots in
 * light, dark and at a phone's width (SCREENSHOT_DIR, else the stack's temp dir).
 */

type Catalog = Record<string, string | Record<string, string>>;
const LOCALES = join(__dirname, '..', '..', 'ui', 'locales');
const catalog = (tag: string): Catalog => JSON.parse(readFileSync(join(LOCALES, `${tag}.json`), 'utf8')) as Catalog;
const TAGS = readdirSync(LOCALES)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -'.json'.length))
  .sort();
/** A catalog text with its placeholders filled as the page fills them. */
function text(tag: string, key: string, params: Record<string, string> = {}): string {
  const message = catalog(tag)[key];
  if (typeof message !== 'string') throw new Error(`${tag}: ${key} is not a plain text`);
  return message.replace(/\{(\w+)\}/g, (m, name: string) => params[name] ?? m);
}
const en = (key: string, params: Record<string, string> = {}): string => text('en', key, params);

const VARIANTS = [
  { name: 'light', colorScheme: 'light', width: 800, height: 900 },
  { name: 'dark', colorScheme: 'dark', width: 800, height: 900 },
  { name: 'phone-light', colorScheme: 'light', width: 390, height: 900 },
] as const;

const rulesDir = mkdtempSync(join(tmpdir(), 'portcullis-e2e-rules-'));
const rulesFile = join(rulesDir, 'access.yaml');
writeFileSync(
  rulesFile,
  'default_policy: allow_authenticated\napps:\n  grafana:\n    domain: [grafana.example.test]\n  wiki:\n    domain: [wiki.example.test]\n',
);

let stack: Stack;
let off: Stack;
let shots: string;

beforeAll(async () => {
  [stack, off] = await Promise.all([
    startStack({
      proxies: [],
      accounts: [
        { username: 'alice' },
        { username: 'bob' },
        { username: 'carol' },
        { username: 'polyglot' },
        ...VARIANTS.map((v) => ({ username: `shot-${v.name}` })),
      ],
      env: { ACCESS_CONFIG: rulesFile },
    }),
    startStack({ proxies: [], accounts: [{ username: 'alice' }], env: { ACCESS_CONFIG: rulesFile, TOKENS: 'false' } }),
  ]);
  shots = screenshotDir(stack);
});
afterAll(async () => {
  await Promise.all([stack?.stop(), off?.stop()]);
  rmSync(rulesDir, { recursive: true, force: true });
});

async function signedIn(on: Stack, username: string, options: Parameters<Stack['newPage']>[0] = {}): Promise<Awaited<ReturnType<Stack['newPage']>>> {
  const opened = await on.newPage(options);
  await opened.page.goto(`${on.gatewayUrl}/login`);
  await submitPassword(opened.page, username, on.accounts[username].password);
  await opened.page.waitForURL(`${on.gatewayUrl}/account`);
  await opened.page.locator('.sessions li').first().waitFor();
  return opened;
}

/** Forward auth as a proxy asks it for `https://<app>.example.test/`, with the token in `Portcullis-Token`. */
function forwardAuth(token: string, app: string): Promise<Response> {
  return fetch(`${stack.forwardAuthUrl}/api/auth/traefik`, {
    redirect: 'manual',
    headers: {
      'Portcullis-Token': token,
      Accept: 'application/json',
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': `${app}.example.test`,
      'X-Forwarded-Uri': '/',
    },
  });
}

/** What `read` gives once it gives `want`, or after 10 s whatever it gives then (the page answers after its request). */
async function settled<T>(read: () => Promise<T>, want: T): Promise<T> {
  const deadline = Date.now() + 10_000;
  let got = await read();
  while (got !== want && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    got = await read();
  }
  return got;
}

/** Expects `read` to give `want` within 10 s. */
async function eventually<T>(read: () => Promise<T>, want: T): Promise<void> {
  expect(await settled(read, want)).toBe(want);
}

const tokenItem = (page: Page, name: string) => page.locator('#token-list li', { has: page.locator('h3', { hasText: name }) });

/** Fills the form and presses "Create token"; resolves the secret the page shows once. */
async function createToken(page: Page, fields: { name: string; apps?: string; days?: string }): Promise<string> {
  await page.getByLabel(en('tokens.nameLabel'), { exact: true }).fill(fields.name);
  await page.getByLabel(en('tokens.appsLabel')).fill(fields.apps ?? '');
  await page.getByLabel(en('tokens.expiryLabel')).fill(fields.days ?? '');
  await page.getByRole('button', { name: en('tokens.create') }).click();
  const secret = page.locator('#token-secret');
  await secret.waitFor();
  return secret.inputValue();
}

describe('with TOKENS on', () => {
  test('a scoped token: made on the page, shown once with Copy, passes forward auth for its app only, and stops when revoked there', async () => {
    const { context, page, problems } = await signedIn(stack, 'alice');
    const section = page.locator('section#tokens-section');
    await section.locator('#tokens-heading').waitFor();
    await expect(section.locator('#tokens-heading').textContent()).resolves.toBe(en('tokens.heading'));
    await expect(section.locator('#tokens-password-note').textContent()).resolves.toBe(en('tokens.passwordNote'));
    await expect(section.locator('#token-list li.empty').textContent()).resolves.toBe(en('tokens.none'));

    const token = await createToken(page, { name: 'grafana backup', apps: 'grafana', days: '7' });
    expect(token).toMatch(/^pct_[A-Za-z0-9_-]{43}$/);
    // Shown once: in a read-only field that has the focus, with the warning and a Copy button.
    const secret = page.locator('#token-secret');
    await expect(secret.getAttribute('readonly')).resolves.toBe('');
    await expect(isFocused(secret)).resolves.toBe(true);
    await expect(page.getByLabel(en('tokens.secretLabel', { name: 'grafana backup' }), { exact: true }).inputValue()).resolves.toBe(token);
    await expect(page.locator('#token-created-warning').textContent()).resolves.toBe(en('tokens.createdWarning'));
    await expect(page.locator('#tokens-status').textContent()).resolves.toBe(en('tokens.createdStatus', { name: 'grafana backup' }));
    const copy = page.getByRole('button', { name: en('tokens.copy'), exact: true });
    await expect(copy.count()).resolves.toBe(1);
    await copy.click();
    await settled(async () => (await page.locator('#tokens-status').textContent()) !== en('tokens.createdStatus', { name: 'grafana backup' }), true);
    await expect(page.locator('#tokens-status').textContent()).resolves.toMatch(new RegExp(`^(${en('tokens.copied')}|${en('tokens.copyFailed')})$`));

    // Listed with its application, dates and "never" used; the form is empty again.
    const item = tokenItem(page, 'grafana backup');
    await eventually(() => item.locator('dd').nth(0).textContent(), 'grafana');
    await expect(item.locator('dd').nth(2).textContent()).resolves.toBe(en('tokens.never'));
    await expect(page.getByLabel(en('tokens.nameLabel'), { exact: true }).inputValue()).resolves.toBe('');

    const passed = await forwardAuth(token, 'grafana');
    expect(passed.status).toBe(200);
    expect(passed.headers.get('remote-user')).toBe('alice');
    expect((await forwardAuth(token, 'wiki')).status).toBe(403);

    // Never again: a reload shows the token listed, not its secret.
    await page.reload();
    await tokenItem(page, 'grafana backup').waitFor();
    await expect(page.locator('#token-created').isHidden()).resolves.toBe(true);
    await expect(page.content()).resolves.not.toContain(token);

    // Revoke, with a second step in place; Cancel first leaves it live.
    const revoke = tokenItem(page, 'grafana backup').getByRole('button', { name: en('tokens.revoke'), exact: true });
    await revoke.click();
    await expect(tokenItem(page, 'grafana backup').locator('.token-confirm p').first().textContent()).resolves.toBe(
      en('tokens.revokeConfirm', { name: 'grafana backup' }),
    );
    const cancel = tokenItem(page, 'grafana backup').getByRole('button', { name: en('tokens.cancel') });
    await expect(isFocused(cancel)).resolves.toBe(true);
    await cancel.click();
    await expect(isFocused(revoke)).resolves.toBe(true);
    expect((await forwardAuth(token, 'grafana')).status).toBe(200);

    await revoke.click();
    await tokenItem(page, 'grafana backup')
      .getByRole('button', { name: en('tokens.revokeYes') })
      .click();
    await eventually(() => page.locator('#tokens-status').textContent(), en('tokens.revoked', { name: 'grafana backup' }));
    await eventually(() => tokenItem(page, 'grafana backup').getAttribute('data-state'), 'revoked');
    await expect(tokenItem(page, 'grafana backup').locator('.badge').textContent()).resolves.toBe(en('tokens.revokedBadge'));
    await expect(tokenItem(page, 'grafana backup').getByRole('button').count()).resolves.toBe(0);
    await expect(isFocused(page.locator('#tokens-heading'))).resolves.toBe(true);
    expect((await forwardAuth(token, 'grafana')).status).toBe(401);
    expect(problems).toEqual([]);
    await context.close();
  });

  test('an unscoped token, keyboard only: it opens every application, and "Done" takes it off the page', async () => {
    const { context, page, problems } = await signedIn(stack, 'bob');
    const name = page.getByLabel(en('tokens.nameLabel'), { exact: true });
    await name.waitFor();
    await name.focus();
    await page.keyboard.type('everything');
    await page.keyboard.press('Enter');
    const secret = page.locator('#token-secret');
    await secret.waitFor();
    const token = await secret.inputValue();
    await expect(isFocused(secret)).resolves.toBe(true);
    const item = tokenItem(page, 'everything');
    await eventually(() => item.locator('dd').nth(0).textContent(), en('tokens.allApps'));
    // No expiry asked: the longest, 365 days by default (read from the list the page reads).
    const listed = await page.evaluate(async () => {
      const res = await (globalThis as unknown as { fetch(u: string): Promise<{ json(): Promise<unknown> }> }).fetch('/api/account/tokens');
      return ((await res.json()) as { tokens: { createdAt: string; expiresAt: string }[] }).tokens[0];
    });
    expect(Math.round((Date.parse(listed.expiresAt) - Date.parse(listed.createdAt)) / 86_400_000)).toBe(365);
    for (const app of ['grafana', 'wiki']) expect((await forwardAuth(token, app)).status).toBe(200);

    // Tab: Copy, then Done; Enter on Done clears the field and returns to the form.
    await page.keyboard.press('Tab');
    await expect(isFocused(page.getByRole('button', { name: en('tokens.copy'), exact: true }))).resolves.toBe(true);
    await page.keyboard.press('Tab');
    await expect(isFocused(page.getByRole('button', { name: en('tokens.done') }))).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await expect(page.locator('#token-created').isHidden()).resolves.toBe(true);
    await expect(secret.inputValue()).resolves.toBe('');
    await expect(isFocused(name)).resolves.toBe(true);

    // Revoke with the keyboard: Enter on its Revoke button moves to Cancel; Shift+Tab to "Yes", Enter.
    const revoke = item.getByRole('button', { name: en('tokens.revoke'), exact: true });
    await revoke.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+Tab');
    await expect(isFocused(item.getByRole('button', { name: en('tokens.revokeYes') }))).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#tokens-status').textContent(), en('tokens.revoked', { name: 'everything' }));
    expect((await forwardAuth(token, 'wiki')).status).toBe(401);
    expect(problems).toEqual([]);
    await context.close();
  });

  test('the form says in place what is wrong: no name, an application the rules do not have, an expiry past the longest', async () => {
    const { context, page, problems } = await signedIn(stack, 'carol');
    const alert = page.locator('#tokens-alert');
    const name = page.getByLabel(en('tokens.nameLabel'), { exact: true });
    const apps = page.getByLabel(en('tokens.appsLabel'));
    const days = page.getByLabel(en('tokens.expiryLabel'));
    await name.waitFor();
    await page.getByRole('button', { name: en('tokens.create') }).click();
    await expect(alert.textContent()).resolves.toBe(en('tokens.invalidName'));
    await expect(name.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(isFocused(name)).resolves.toBe(true);

    await name.fill('typo');
    await apps.fill('grafanna');
    await page.getByRole('button', { name: en('tokens.create') }).click();
    // The gateway's answer (400 invalid_fields, apps): the rules have no "grafanna". It comes over
    // the network, so the page is asked until it shows it (CI once read the alert before the answer).
    await eventually(() => alert.textContent(), en('tokens.invalidApps'));
    await expect(apps.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(name.getAttribute('aria-invalid')).resolves.toBeNull();
    await expect(isFocused(apps)).resolves.toBe(true);

    await apps.fill('wiki');
    await days.fill('400');
    await page.getByRole('button', { name: en('tokens.create') }).click();
    await expect(alert.textContent()).resolves.toBe(en('tokens.invalidExpiry', { max: '365' }));
    await expect(isFocused(days)).resolves.toBe(true);
    await expect(page.locator('#token-list li.empty').count()).resolves.toBe(1);
    // Chromium logs the 400 answer of the unknown application as a console error.
    expect(problems.filter((p) => !/status of 400\b/.test(p))).toEqual([]);
    await context.close();
  });

  test.each(VARIANTS)('the section with a live and a revoked token, $name (screenshot, nothing wider than the window)', async (variant) => {
    const options = { colorScheme: variant.colorScheme, width: variant.width, height: variant.height } as const;
    const { context, page, problems } = await signedIn(stack, `shot-${variant.name}`, options);
    await createToken(page, { name: 'old deploy key', apps: 'wiki' });
    await tokenItem(page, 'old deploy key')
      .getByRole('button', { name: en('tokens.revoke'), exact: true })
      .click();
    await tokenItem(page, 'old deploy key')
      .getByRole('button', { name: en('tokens.revokeYes') })
      .click();
    await eventually(() => tokenItem(page, 'old deploy key').getAttribute('data-state'), 'revoked');
    await createToken(page, { name: 'nightly backup', apps: 'grafana, wiki', days: '90' });
    await eventually(() => tokenItem(page, 'nightly backup').locator('dd').nth(0).textContent(), 'grafana and wiki');
    const overflow = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
      return doc.documentElement.scrollWidth - doc.documentElement.clientWidth;
    });
    expect(overflow).toBeLessThanOrEqual(0);
    await page.mouse.move(0, 0);
    await page.locator('section#tokens-section').screenshot({ path: join(shots, `account-tokens-${variant.name}.png`), animations: 'disabled', caret: 'hide' });
    expect(problems).toEqual([]);
    await context.close();
  });

  test('the section speaks every UI language (one page load each)', async () => {
    const { context, page, problems } = await signedIn(stack, 'polyglot');
    const wrong: string[] = [];
    for (const tag of TAGS) {
      await page.evaluate(
        (t) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('portcullis.language', t),
        tag,
      );
      await page.goto(`${stack.gatewayUrl}/account`);
      const heading = page.locator('#tokens-heading');
      await heading.waitFor();
      await page.locator('#token-list li.empty').waitFor();
      const seen = {
        lang: await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { lang: string } } }).document.documentElement.lang),
        heading: await heading.textContent(),
        intro: await page.locator('#tokens-section > p').first().textContent(),
        note: await page.locator('#tokens-password-note').textContent(),
        none: await page.locator('#token-list li.empty').textContent(),
        name: await page.locator('label[for="token-name"]').textContent(),
        expiryHint: await page.locator('#token-expiry-hint').textContent(),
        create: await page.locator('#token-create').textContent(),
      };
      const want = {
        lang: tag,
        heading: text(tag, 'tokens.heading'),
        intro: text(tag, 'tokens.intro'),
        note: text(tag, 'tokens.passwordNote'),
        none: text(tag, 'tokens.none'),
        name: text(tag, 'tokens.nameLabel'),
        expiryHint: text(tag, 'tokens.expiryHint', { max: new Intl.NumberFormat(tag).format(365) }),
        create: text(tag, 'tokens.create'),
      };
      if (JSON.stringify(seen) !== JSON.stringify(want)) wrong.push(`${tag}: ${JSON.stringify(seen)} != ${JSON.stringify(want)}`);
      // Translated, not English left in place.
      if (tag !== 'en' && seen.heading === en('tokens.heading') && seen.note === en('tokens.passwordNote')) wrong.push(`${tag}: English`);
    }
    expect(wrong).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('with TOKENS=false', () => {
  test('the account page has no tokens section and the routes are 404', async () => {
    const { context, page, problems } = await signedIn(off, 'alice');
    // The other sections have come (the two-step code is filled after its own request).
    await page.locator('#totp-heading').waitFor();
    await expect(page.locator('section#tokens-section').isHidden()).resolves.toBe(true);
    await expect(page.locator('#tokens-heading').count()).resolves.toBe(0);
    await expect(page.locator('#token-form').count()).resolves.toBe(0);
    const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    expect((await fetch(`http://127.0.0.1:${off.gatewayPort}/api/account/tokens`, { headers: { cookie: cookies, accept: 'application/json' } })).status).toBe(
      404,
    );
    expect(problems).toEqual([]);
    await context.close();
  });
});
