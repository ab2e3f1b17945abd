import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { TEST_SECRET, usersEntry } from '../support/credentials';
import { freePort } from '../support/net';
import { startGatewayProcess, waitForHttp, type Child } from '../support/process';
import { echoed, submitPassword } from './support/flows';
import { startCaddy, startNginx } from './support/proxies';
import { CHROMIUM_ARGS, type ProxyName } from './support/stack';
import { startEchoApp } from './support/upstream';

/**
 * Issue 17 end to end: two root domains (`example.test`, the primary, and `other.test`), real
 * nginx and caddy each serving both gateway hosts and an application on each domain from the
 * shipped examples, headless Chromium resolving both domains to 127.0.0.1. Plain HTTP on
 * loopback (no Secure cookies needed).
 */
const PROXIES: readonly ProxyName[] = ['nginx', 'caddy'];
const PASSWORD = 'alice-Pa55word!';

let dir: string;
let browser: Browser;
const children: Child[] = [];
const closers: (() => Promise<void>)[] = [];

interface DomainsSite {
  /** Gateway URLs as the browser reaches them, through the proxy (APP_URL's two entries). */
  readonly primary: string;
  readonly secondary: string;
  /** An application on each root domain, behind the same proxy. */
  readonly first: string;
  readonly second: string;
}
const sites: Partial<Record<ProxyName, DomainsSite>> = {};

/**
 * One gateway per proxy (its APP_URL names the proxy's port), set up as docs/domains.md says: the
 * proxy serves both gateway hosts (nginx: AUTH_HOST lists both; caddy: AUTH_ADDRESS lists both)
 * and an application on each root domain.
 */
async function startSite(proxy: ProxyName, echoPort: number): Promise<DomainsSite> {
  const port = await freePort();
  const gatewayPort = await freePort();
  const forwardAuthPort = await freePort();
  const primary = `http://auth.example.test:${port}`;
  const secondary = `http://auth.other.test:${port}`;
  const gateway = startGatewayProcess(
    {
      PORT: String(gatewayPort),
      FORWARD_AUTH_PORT: String(forwardAuthPort),
      APP_URL: `${primary},${secondary}`,
      SECRET: TEST_SECRET,
      USERS: usersEntry('alice', PASSWORD),
      LOG_LEVEL: 'warn',
      DATA_DIR: join(dir, `data-${proxy}`),
    },
    { logFile: join(dir, `gateway-${proxy}.log`) },
  );
  children.push(gateway);
  await waitForHttp(gateway, gatewayPort, `auth.example.test:${port}`);
  const apps = [`app-${proxy}.example.test`, `app-${proxy}.other.test`].map((host) => ({ host, upstreamPort: echoPort }));
  // nginx: server_name takes several names; caddy: the site address takes a comma list (the scheme and port are added by the support code).
  const authHost = proxy === 'nginx' ? 'auth.example.test auth.other.test' : `auth.example.test:${port}, http://auth.other.test`;
  const layout = { port, authHost, gatewayPort, forwardAuthPort, apps };
  children.push(proxy === 'nginx' ? await startNginx(join(dir, 'nginx'), layout) : await startCaddy(join(dir, 'caddy'), layout));
  return { primary, secondary, first: `http://${apps[0].host}:${port}`, second: `http://${apps[1].host}:${port}` };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portcullis-e2e-domains-'));
  const echo = await startEchoApp();
  closers.push(() => echo.close());
  for (const proxy of PROXIES) sites[proxy] = await startSite(proxy, echo.port);
  const args = CHROMIUM_ARGS.map((a) =>
    a.startsWith('--host-resolver-rules=') ? '--host-resolver-rules=MAP *.example.test 127.0.0.1, MAP *.other.test 127.0.0.1' : a,
  );
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args });
}, 120_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  for (const close of closers.reverse()) await close().catch(() => undefined);
  for (const child of children.reverse()) await child.stop();
  if (process.env.E2E_KEEP_DIR === undefined && dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale: 'en-US' });
  return { context, page: await context.newPage() };
}

describe.each(PROXIES)('through %s', (proxy) => {
  const primary = (): string => site().primary;
  const secondary = (): string => site().secondary;
  const site = (): DomainsSite => {
    const s = sites[proxy];
    if (s === undefined) throw new Error(`${proxy} is not running`);
    return s;
  };

  test('one login on the first domain opens an app of the second without typing; a logout on the second logs out of the first', async () => {
    const { context, page } = await newPage();
    const first = `${site().first}/reports?x=1`;
    await page.goto(first);
    await page.waitForURL(`${primary()}/login?**`);
    await submitPassword(page, 'alice', PASSWORD);
    await page.waitForURL(`${primary()}/continue?**`);
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL(first);
    expect(await echoed(page, 'remote-user')).toBe('alice');

    // The second domain: the hand-off runs on redirects alone; only the one-time code is in a URL.
    const seen: string[] = [];
    page.on('request', (r) => seen.push(r.url()));
    const second = `${site().second}/inbox?y=2`;
    await page.goto(second);
    await page.waitForURL(second);
    expect(await echoed(page, 'remote-user')).toBe('alice');
    const redeem = seen.find((u) => u.startsWith(`${secondary()}/api/handoff/redeem?`));
    expect(redeem).toBeDefined();
    expect([...new URL(redeem ?? '').searchParams.keys()]).toEqual(['code']);
    const cookies = await context.cookies();
    const sessions = cookies.filter((c) => c.name === 'portcullis-session');
    expect(sessions.map((c) => c.domain).sort()).toEqual(['.example.test', '.other.test']);

    // A replay of the code, even in the same browser, is refused.
    const replay = await page.goto(redeem ?? '');
    expect(replay?.status()).toBe(400);

    // Log out on the second domain's gateway page.
    await page.goto(`${secondary()}/logout`);
    await page.getByRole('button', { name: 'Log out' }).click();
    // The login page belongs to the primary: the secondary's hand-off finds no session there either.
    await page.waitForURL(`${primary()}/login?**`);
    // The first domain's cookie is still in the browser, but its session is over.
    await page.goto(first);
    await page.waitForURL(`${primary()}/login?**`);
    await page.goto(second);
    await page.waitForURL(`${primary()}/login?**`);
    await context.close();
  });

  test('a browser not yet logged in is sent from the second domain to the primary login, then on to the app it asked for', async () => {
    const { context, page } = await newPage();
    const second = `${site().second}/direct`;
    await page.goto(second);
    await page.waitForURL(`${primary()}/login?**`);
    await submitPassword(page, 'alice', PASSWORD);
    await page.waitForURL(`${primary()}/continue?**`);
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL(second);
    expect(await echoed(page, 'remote-user')).toBe('alice');
    await context.close();
  });

  test('a code issued for another browser is refused (no session planted from a link)', async () => {
    const attacker = await newPage();
    await attacker.page.goto(`${site().first}/`);
    await attacker.page.waitForURL(`${primary()}/login?**`);
    await submitPassword(attacker.page, 'alice', PASSWORD);
    await attacker.page.waitForURL(`${primary()}/continue?**`);
    const seen: string[] = [];
    attacker.page.on('request', (r) => seen.push(r.url()));
    // The attacker stops at the redeem step and sends the link instead.
    await attacker.page.route(`${secondary()}/api/handoff/redeem**`, (route) => route.abort());
    await attacker.page.goto(`${site().second}/`).catch(() => undefined);
    const link = seen.find((u) => u.startsWith(`${secondary()}/api/handoff/redeem?`));
    expect(link).toBeDefined();
    const victim = await newPage();
    const answer = await victim.page.goto(link ?? '');
    expect(answer?.status()).toBe(400);
    expect((await victim.context.cookies()).filter((c) => c.name === 'portcullis-session')).toEqual([]);
    await attacker.context.close();
    await victim.context.close();
  });
});
