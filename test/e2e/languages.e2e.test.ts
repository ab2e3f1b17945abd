import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { isFocused } from './support/flows';
import { cardScreenshot, screenshotDir } from './support/screenshots';
import { startStack, type Stack } from './support/stack';

/**
 * The login pages in the visitor's language (issue 18), in Chromium: the browser's language picks
 * the catalog (only that one is fetched), `<html lang dir>` follow it, the server's codes become
 * that language's texts (a wrong password, a lock with its wait), the menu switches language and
 * the choice is kept; in Arabic the page is mirrored and still passes the keyboard and contrast
 * checks. Screenshots of the login page in German, Japanese and Arabic (SCREENSHOT_DIR, as
 * `npm run screenshots` sets it to docs/screenshots).
 */

type Catalog = Record<string, string | Record<string, string>>;
const catalog = (tag: string): Catalog => JSON.parse(readFileSync(join(__dirname, '..', '..', 'ui', 'locales', `${tag}.json`), 'utf8')) as Catalog;
/** A catalog text with its placeholders filled, as the page fills them. */
function text(tag: string, key: string, params: Record<string, string> = {}): string {
  const message = catalog(tag)[key];
  if (typeof message !== 'string') throw new Error(`${tag}: ${key} is not a plain text`);
  return message.replace(/\{(\w+)\}/g, (m, name: string) => params[name] ?? m);
}

const LOCALES = [
  { browser: 'de-DE', tag: 'de', dir: 'ltr' },
  { browser: 'ja-JP', tag: 'ja', dir: 'ltr' },
  { browser: 'ar', tag: 'ar', dir: 'rtl' },
] as const;

let stack: Stack;
let shots: string;

beforeAll(async () => {
  stack = await startStack({
    proxies: [],
    accounts: [{ username: 'kim' }, { username: 'menu' }, ...LOCALES.flatMap((l) => [{ username: `wrong-${l.tag}` }, { username: `locked-${l.tag}` }])],
    env: { LOGIN_MAX_RETRIES: '3', LOGIN_TIMEOUT: '300' },
  });
  shots = screenshotDir(stack);
});

afterAll(async () => {
  await stack?.stop();
});

const documentLanguage = (page: Page): Promise<{ lang: string; dir: string }> =>
  page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { lang: string; dir: string } } }).document.documentElement;
    return { lang: root.lang, dir: root.dir };
  });

const heading = (page: Page): Promise<string | null> => page.getByRole('heading', { level: 1 }).textContent();

/** The catalogs a page fetched (their hashed names start with `locale-`). */
function catalogRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (r) => {
    const m = /\/assets\/locale-([A-Za-z-]+)\.[0-9a-f]+\.json$/.exec(new URL(r.url()).pathname);
    if (m !== null) seen.push(m[1]);
  });
  return seen;
}

describe.each(LOCALES)('a browser that prefers $browser', ({ browser, tag, dir }) => {
  test('gets the login page in that language, with lang and dir set, fetching only that catalog', async () => {
    const { context, page, problems } = await stack.newPage({ locale: browser });
    const fetched = catalogRequests(page);
    await page.goto(`${stack.gatewayUrl}/login`);
    await expect(heading(page)).resolves.toBe(text(tag, 'login.heading'));
    await expect(documentLanguage(page)).resolves.toEqual({ lang: tag, dir });
    await expect(page.getByLabel(text(tag, 'login.username')).count()).resolves.toBe(1);
    await expect(page.getByLabel(text(tag, 'login.password'), { exact: true }).count()).resolves.toBe(1);
    await expect(page.locator('.footnote').textContent()).resolves.toBe(text(tag, 'app.footer'));
    await expect(page.title()).resolves.toBe(`${text(tag, 'login.heading')} · Portcullis`);
    expect(fetched).toEqual([tag]);
    expect(problems).toEqual([]);
    await context.close();
  });

  test('a wrong password is told in that language', async () => {
    const { context, page, problems } = await stack.newPage({ locale: browser });
    await page.goto(`${stack.gatewayUrl}/login`);
    await page.getByLabel(text(tag, 'login.username')).fill(`wrong-${tag}`);
    await page.getByLabel(text(tag, 'login.password'), { exact: true }).fill('not-the-password');
    await page.getByRole('button', { name: text(tag, 'login.submit') }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe(text(tag, 'login.invalid_credentials'));
    expect(problems).toEqual([]);
    await context.close();
  });

  test('a locked account is told in that language, with the wait as the language says it', async () => {
    const { context, page, problems } = await stack.newPage({ locale: browser });
    await page.goto(`${stack.gatewayUrl}/login`);
    const username = page.getByLabel(text(tag, 'login.username'));
    const password = page.getByLabel(text(tag, 'login.password'), { exact: true });
    const submit = page.getByRole('button', { name: text(tag, 'login.submit') });
    const alert = page.getByRole('alert');
    for (let i = 0; i < 3; i += 1) {
      await username.fill(`locked-${tag}`);
      await password.fill(`wrong-${i}`);
      await submit.click();
      await expect(alert.textContent()).resolves.toBe(text(tag, 'login.invalid_credentials'));
    }
    await password.fill(stack.accounts[`locked-${tag}`].password);
    await submit.click();
    const wait = new Intl.RelativeTimeFormat(tag, { numeric: 'always' }).format(5, 'minute');
    const locked = text(tag, 'problem.account_locked', { wait });
    // The lock answer replaces the last "wrong password" text once the request is back.
    for (let i = 0; i < 50 && (await alert.textContent()) !== locked; i += 1) await page.waitForTimeout(100);
    await expect(alert.textContent()).resolves.toBe(locked);
    expect(problems).toEqual([]);
    await context.close();
  });

  test("the forgot-password page's default text (no FORGOT_PASSWORD_MESSAGE) is in that language", async () => {
    const { context, page, problems } = await stack.newPage({ locale: browser });
    await page.goto(`${stack.gatewayUrl}/forgot-password`);
    await expect(heading(page)).resolves.toBe(text(tag, 'forgot.heading'));
    await expect(page.locator('.message').textContent()).resolves.toBe(text(tag, 'forgot.local', { stores: text(tag, 'forgot.storeUsers') }));
    expect(problems).toEqual([]);
    await context.close();
  });

  test('the login page in that language, as a screenshot', async () => {
    const { context, page, problems } = await stack.newPage({ locale: browser, width: 800, height: 720 });
    await page.goto(`${stack.gatewayUrl}/login?redirect_uri=${encodeURIComponent('https://grafana.example.test/d/overview')}`);
    await expect(heading(page)).resolves.toBe(text(tag, 'login.heading'));
    await cardScreenshot(page, join(shots, `login-${tag}.png`));
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('after the login, in Japanese', () => {
  test('the account page and its sections (sessions, two-step code) speak the language too', async () => {
    const { context, page, problems } = await stack.newPage({ locale: 'ja-JP' });
    await page.goto(`${stack.gatewayUrl}/login`);
    await page.getByLabel(text('ja', 'login.username')).fill('menu');
    await page.getByLabel(text('ja', 'login.password'), { exact: true }).fill(stack.accounts.menu.password);
    await page.getByRole('button', { name: text('ja', 'login.submit') }).click();
    await page.waitForURL(`${stack.gatewayUrl}/account`);
    await expect(heading(page)).resolves.toBe(text('ja', 'account.heading'));
    await expect(page.locator('#sessions-heading').textContent()).resolves.toBe(text('ja', 'account.sessionsHeading'));
    await page.locator('#totp-heading').waitFor();
    await expect(page.locator('#totp-heading').textContent()).resolves.toBe(text('ja', 'totpSetup.heading'));
    await expect(page.locator('#totp-setup').textContent()).resolves.toBe(text('ja', 'totpSetup.setUp'));
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('the passkey enrolment page (issue 16) in Arabic', () => {
  test('says in Arabic, right to left, that it needs the whole link', async () => {
    const { context, page, problems } = await stack.newPage({ locale: 'ar' });
    await page.goto(`${stack.gatewayUrl}/enrol`);
    await expect(heading(page)).resolves.toBe(text('ar', 'enrol.heading'));
    await expect(page.getByRole('alert').textContent()).resolves.toBe(text('ar', 'enrol.noCode'));
    await expect(documentLanguage(page)).resolves.toEqual({ lang: 'ar', dir: 'rtl' });
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('the language menu', () => {
  test('switches the page to the chosen language and keeps it on other pages and in a new tab of the same browser', async () => {
    const { context, page, problems } = await stack.newPage({ locale: 'de-DE' });
    await page.goto(`${stack.gatewayUrl}/login`);
    await expect(heading(page)).resolves.toBe(text('de', 'login.heading'));
    await page.getByText(text('de', 'language.current', { language: 'Deutsch' })).click();
    await page.getByRole('button', { name: '日本語' }).click();
    await page.waitForFunction(() => (globalThis as unknown as { document: { documentElement: { lang: string } } }).document.documentElement.lang === 'ja');
    await expect(heading(page)).resolves.toBe(text('ja', 'login.heading'));
    await page.goto(`${stack.gatewayUrl}/forgot-password`);
    await expect(heading(page)).resolves.toBe(text('ja', 'forgot.heading'));
    const other = await context.newPage();
    await other.goto(`${stack.gatewayUrl}/login`);
    await expect(heading(other)).resolves.toBe(text('ja', 'login.heading'));
    await expect(documentLanguage(other)).resolves.toEqual({ lang: 'ja', dir: 'ltr' });
    expect(problems).toEqual([]);
    await context.close();
  });

  test('is on every page, names each language in that language, and marks the current one', async () => {
    const { context, page } = await stack.newPage({ locale: 'fr-FR' });
    for (const path of ['/login', '/forgot-password', '/unauthorized', '/error', '/no/such/page']) {
      await page.goto(`${stack.gatewayUrl}${path}`);
      await expect(page.locator('nav.languages summary').textContent()).resolves.toBe(text('fr', 'language.current', { language: 'Français' }));
    }
    const options = page.locator('nav.languages button');
    await expect(options.count()).resolves.toBe(11);
    await expect(page.locator('nav.languages button[lang="ar"]').textContent()).resolves.toBe('العربية');
    await expect(page.locator('nav.languages button[aria-current="true"]').getAttribute('lang')).resolves.toBe('fr');
    await context.close();
  });

  test('a keyboard-only person can switch language: Tab to the menu, Enter opens it, Tab to a language, Enter picks it', async () => {
    const { context, page, problems } = await stack.newPage({ locale: 'en-US' });
    await page.goto(`${stack.gatewayUrl}/login`);
    await expect(isFocused(page.getByLabel('Username or e-mail'))).resolves.toBe(true);
    // username → password → Log in → Forgot your password? → the menu
    for (let i = 0; i < 4; i += 1) await page.keyboard.press('Tab');
    await expect(isFocused(page.locator('nav.languages summary'))).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab'); // English
    await page.keyboard.press('Tab'); // Deutsch
    await expect(isFocused(page.getByRole('button', { name: 'Deutsch' }))).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => (globalThis as unknown as { document: { documentElement: { lang: string } } }).document.documentElement.lang === 'de');
    await expect(heading(page)).resolves.toBe(text('de', 'login.heading'));
    expect(problems).toEqual([]);
    await context.close();
  });
});

const OPERATOR_TEXT = 'Call the IT desk on extension 4242.';

describe('with UI_LANGUAGE and UI_LANGUAGES', () => {
  let forced: Stack;
  let limited: Stack;
  beforeAll(async () => {
    [forced, limited] = await Promise.all([
      startStack({
        proxies: [],
        accounts: [{ username: 'alice' }],
        env: { UI_LANGUAGE: 'fr', FORGOT_PASSWORD_MESSAGE: OPERATOR_TEXT, APP_TITLE: 'Corp Login' },
      }),
      startStack({ proxies: [], accounts: [{ username: 'alice' }], env: { UI_LANGUAGES: 'nl,pl' } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([forced?.stop(), limited?.stop()]);
  });

  test('UI_LANGUAGE shows every page in that language whatever the browser prefers, with no menu', async () => {
    const { context, page, problems } = await forced.newPage({ locale: 'ja-JP' });
    await page.goto(`${forced.gatewayUrl}/login`);
    await expect(heading(page)).resolves.toBe(text('fr', 'login.heading'));
    await expect(page.locator('nav.languages').count()).resolves.toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  test("the operator's own texts (APP_TITLE, FORGOT_PASSWORD_MESSAGE) stay as written", async () => {
    const { context, page, problems } = await forced.newPage({ locale: 'fr-FR' });
    await page.goto(`${forced.gatewayUrl}/forgot-password`);
    await expect(heading(page)).resolves.toBe(text('fr', 'forgot.heading'));
    await expect(page.locator('.message').textContent()).resolves.toBe(OPERATOR_TEXT);
    await expect(page.locator('.brand').textContent()).resolves.toBe('Corp Login');
    expect(problems).toEqual([]);
    await context.close();
  });

  test('UI_LANGUAGES limits the menu; a browser wanting none of them gets the first', async () => {
    const { context, page, problems } = await limited.newPage({ locale: 'de-DE' });
    await page.goto(`${limited.gatewayUrl}/login`);
    await expect(heading(page)).resolves.toBe(text('nl', 'login.heading'));
    await expect(page.locator('nav.languages button').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('lang')))).resolves.toEqual(['nl', 'pl']);
    expect(problems).toEqual([]);
    await context.close();
  });
});

/**
 * WCAG AA contrast of every visible text on the page, from the colours Chromium computed (the
 * text's colour on the first opaque background behind it): the stylesheet's pairs as laid out.
 */
async function lowContrastTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    type El = {
      tagName: string;
      textContent: string | null;
      parentElement: El | null;
      childNodes: ArrayLike<{ nodeType: number; textContent: string | null }>;
      getClientRects(): ArrayLike<unknown>;
    };
    const doc = (globalThis as unknown as { document: { body: { querySelectorAll(s: string): ArrayLike<El> } } }).document;
    const style = (el: El): { color: string; backgroundColor: string; visibility: string; opacity: string } =>
      (globalThis as unknown as { getComputedStyle(el: El): { color: string; backgroundColor: string; visibility: string; opacity: string } }).getComputedStyle(
        el,
      );
    const rgba = (value: string): number[] => (value.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r, g, b]: number[]): number => {
      const [R, G, B] = [r, g, b].map((c) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * R + 0.7152 * G + 0.0722 * B;
    };
    const problems: string[] = [];
    for (const el of Array.from(doc.body.querySelectorAll('*'))) {
      const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && (n.textContent ?? '').trim() !== '');
      if (!own || el.getClientRects().length === 0 || style(el).visibility === 'hidden') continue;
      let bg: El | null = el;
      while (bg !== null && (rgba(style(bg).backgroundColor)[3] ?? 1) === 0) bg = bg.parentElement;
      const back = bg === null ? [255, 255, 255] : rgba(style(bg).backgroundColor);
      const fore = rgba(style(el).color);
      const [hi, lo] = [luminance(fore), luminance(back)].sort((a, b) => b - a);
      const ratio = (hi + 0.05) / (lo + 0.05);
      if (ratio < 4.5) problems.push(`${el.tagName} "${(el.textContent ?? '').trim().slice(0, 40)}" ${ratio.toFixed(2)}:1`);
    }
    return problems;
  });
}

describe('the right-to-left layout (Arabic)', () => {
  test('the contrast check itself flags a text too pale for its background', async () => {
    const { context, page } = await stack.newPage({ locale: 'ar' });
    await page.goto(`${stack.gatewayUrl}/login`);
    await expect(heading(page)).resolves.toBe(text('ar', 'login.heading'));
    await page.locator('h1').evaluate((el) => {
      (el as unknown as { style: { color: string } }).style.color = '#dddddd';
    });
    await expect(lowContrastTexts(page)).resolves.toEqual([expect.stringMatching(/^H1 /)]);
    await context.close();
  });

  test('is mirrored: the brand line, the fields and the buttons start on the right', async () => {
    const { context, page } = await stack.newPage({ locale: 'ar' });
    await page.goto(`${stack.gatewayUrl}/login`);
    await expect(heading(page)).resolves.toBe(text('ar', 'login.heading'));
    const layout = await page.evaluate(() => {
      type Box = { left: number; right: number };
      const doc = (
        globalThis as unknown as {
          document: {
            querySelector(s: string): { getBoundingClientRect(): Box } | null;
            createRange(): { selectNodeContents(n: unknown): void; getBoundingClientRect(): Box };
          };
        }
      ).document;
      const box = (s: string): Box => doc.querySelector(s)?.getBoundingClientRect() ?? { left: NaN, right: NaN };
      // Where the words are, not the block that holds them.
      const words = (s: string): Box => {
        const range = doc.createRange();
        range.selectNodeContents(doc.querySelector(s));
        return range.getBoundingClientRect();
      };
      return { icon: box('.brand img'), title: box('.brand span'), card: box('.card'), label: words('label[for="email"]'), heading: words('h1') };
    });
    expect(layout.icon.left).toBeGreaterThan(layout.title.left);
    // The heading and the label start at the card's right edge (its padding), far from the left one.
    for (const words of [layout.heading, layout.label]) expect(layout.card.right - words.right).toBeLessThan(words.left - layout.card.left);
    await context.close();
  });

  test('a keyboard-only person can log in: focus starts in the first field, Tab follows the page, Enter submits', async () => {
    const { context, page, problems } = await stack.newPage({ locale: 'ar' });
    const target = `${stack.echoUrl}/rtl-keyboard`;
    await page.goto(`${stack.gatewayUrl}/login?redirect_uri=${encodeURIComponent(target)}`);
    await expect(isFocused(page.getByLabel(text('ar', 'login.username')))).resolves.toBe(true);
    await page.keyboard.type('kim@example.test');
    await page.keyboard.press('Tab');
    await expect(isFocused(page.getByLabel(text('ar', 'login.password'), { exact: true }))).resolves.toBe(true);
    await page.keyboard.type(stack.accounts.kim.password);
    await page.keyboard.press('Tab');
    await expect(isFocused(page.getByRole('button', { name: text('ar', 'login.submit') }))).resolves.toBe(true);
    await page.keyboard.press('Tab');
    await expect(isFocused(page.getByRole('link', { name: text('ar', 'login.forgot') }))).resolves.toBe(true);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${stack.gatewayUrl}/continue?**`);
    // The URL changes before the page's script has run: wait for what it renders, then read lang/dir.
    const go = page.getByRole('link', { name: text('ar', 'continue.button') });
    await go.waitFor();
    await expect(documentLanguage(page)).resolves.toEqual({ lang: 'ar', dir: 'rtl' });
    await expect(isFocused(go)).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await page.waitForURL(target);
    expect(problems).toEqual([]);
    await context.close();
  });

  test.each(['light', 'dark'] as const)(
    'every text meets WCAG AA contrast in the %s scheme, on the login page, its messages and the menu',
    async (colorScheme) => {
      const { context, page } = await stack.newPage({ locale: 'ar', colorScheme });
      await page.goto(`${stack.gatewayUrl}/login`);
      await page.getByRole('button', { name: text('ar', 'login.submit') }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe(text('ar', 'login.missingBoth'));
      await page.locator('nav.languages summary').click();
      await expect(lowContrastTexts(page)).resolves.toEqual([]);
      await page.goto(`${stack.gatewayUrl}/unauthorized?resource=grafana.example.test&username=alice`);
      await expect(lowContrastTexts(page)).resolves.toEqual([]);
      await context.close();
    },
  );
});
