import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePort } from '../support/net';
import { built, runNode, startChild, waitForHttp, type Child } from '../support/process';
import { echoed, submitPassword } from './support/flows';
import { nginxMainHead } from './support/proxies';
import { CHROMIUM_ARGS } from './support/stack';
import { startEchoApp } from './support/upstream';

/**
 * The demo says what to do next: after login the account page shows "protect your first app" with
 * the same nginx and caddy snippets as the start-up banner, and those snippets, run by real nginx
 * and caddy as they are shown (only the two ports moved to free ones), protect an app with this login.
 */
describe('the demo, after login', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-first-app-'));
  const children: Child[] = [];
  let echo: Awaited<ReturnType<typeof startEchoApp>>;
  let browser: Browser;
  let gatewayPort: number;
  let password: string;
  // BACKGROUND_IMAGE on another origin: the pages' CSP must let exactly that origin in.
  let images: Server;
  const imageRequests: string[] = [];

  beforeAll(async () => {
    echo = await startEchoApp();
    images = createServer((req, res) => {
      imageRequests.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/svg+xml' });
      res.end('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#f80"/></svg>');
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    const background = `http://images.example.test:${(images.address() as AddressInfo).port}/bg.svg`;
    gatewayPort = await freePort();
    const gateway = runNode(built('src/main.js'), [], { PORT: String(gatewayPort), ADDRESS: '127.0.0.1', LOG_LEVEL: 'warn', BACKGROUND_IMAGE: background });
    children.push(gateway);
    [, password] = await gateway.waitFor(/password: (\S+)/);
    await waitForHttp(gateway, gatewayPort, `localhost:${gatewayPort}`);
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    for (const child of children.reverse()) await child.stop();
    await echo?.close();
    await new Promise((resolve) => images?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const loginPage = (): string => `http://localhost:${gatewayPort}/login`;

  async function logIn(page: Page): Promise<void> {
    await submitPassword(page, 'demo', password);
  }

  /** The snippets exactly as the account page shows them. */
  async function shownSnippets(): Promise<{ nginx: string; caddy: string; banner: string }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(loginPage());
    await logIn(page);
    await page.waitForURL(`http://localhost:${gatewayPort}/account`);
    const nginx = (await page.locator('#nginx-snippet').textContent()) ?? '';
    const caddy = (await page.locator('#caddy-snippet').textContent()) ?? '';
    await context.close();
    return { nginx, caddy, banner: children[0].stderr };
  }

  test('the account page points to "protect your first app" with the nginx and caddy snippets of the start-up banner', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(loginPage());
    await logIn(page);
    await page.waitForURL(`http://localhost:${gatewayPort}/account`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Your account');
    await expect(page.getByRole('heading', { level: 2 }).first().textContent()).resolves.toBe('Next: protect your first app');
    await expect(page.locator('.next-steps p').first().textContent()).resolves.toBe(
      'Say your app runs on 127.0.0.1:8080. Put one of these proxies in front of it, open http://localhost:8000 and this login lets you in. The full examples, with HTTPS, are explained in docs/proxies.md of Portcullis.',
    );
    const nginx = (await page.locator('#nginx-snippet').textContent()) ?? '';
    const caddy = (await page.locator('#caddy-snippet').textContent()) ?? '';
    expect(nginx).toContain(`proxy_pass http://127.0.0.1:${gatewayPort}/api/auth/nginx;`);
    expect(nginx).toContain('proxy_set_header X-Original-URL $scheme://$host:$server_port$request_uri;');
    expect(caddy).toContain(`forward_auth 127.0.0.1:${gatewayPort} {`);
    // The banner shows the same lines (indented, tabs as spaces).
    const banner = children[0].stderr;
    for (const line of [...nginx.split('\n'), ...caddy.split('\n')]) expect(banner).toContain(`     ${line.replace(/\t/g, '    ')}\n`);
    expect(problems).toEqual([]);
    await context.close();
  });

  test('BACKGROUND_IMAGE is the page background, loaded from its own origin without a CSP refusal', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const messages: string[] = [];
    page.on('console', (m) => messages.push(m.text()));
    await page.goto(loginPage());
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Log in');
    const background = await page.evaluate(() => {
      const g = globalThis as unknown as { document: { body: unknown }; getComputedStyle(e: unknown): { backgroundImage: string } };
      return g.getComputedStyle(g.document.body).backgroundImage;
    });
    expect(background).toMatch(/^url\("http:\/\/images\.example\.test:\d+\/bg\.svg"\)$/);
    for (let i = 0; i < 50 && !imageRequests.includes('/bg.svg'); i += 1) await page.waitForTimeout(100);
    expect(imageRequests).toContain('/bg.svg');
    expect(messages.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
    await context.close();
  });

  test('the nginx snippet, run as shown, sends a visitor to the login and then lets them in with Remote-User', async () => {
    const { nginx } = await shownSnippets();
    const port = await freePort();
    const ng = join(dir, 'nginx');
    mkdirSync(ng, { recursive: true });
    const server = nginx.replace('listen 8000;', `listen 127.0.0.1:${port};`).replace('http://127.0.0.1:8080;', `http://127.0.0.1:${echo.port};`);
    writeFileSync(join(ng, 'nginx.conf'), [...nginxMainHead(ng), server, '}', ''].join('\n'));
    const child = startChild('nginx', 'nginx', ['-p', ng, '-c', join(ng, 'nginx.conf'), '-e', join(ng, 'error.log')], { logFile: join(ng, 'stdout.log') });
    children.push(child);
    await waitForHttp(child, port, `localhost:${port}`);
    await expectProtected(`http://localhost:${port}/first?app=1`);
  });

  test('the caddy snippet, run as shown, sends a visitor to the login and then lets them in with Remote-User', async () => {
    const { caddy } = await shownSnippets();
    const port = await freePort();
    const cd = join(dir, 'caddy');
    mkdirSync(cd, { recursive: true });
    const site = caddy
      .replace('http://localhost:8000 {', `http://localhost:${port} {`)
      .replace('reverse_proxy 127.0.0.1:8080', `reverse_proxy 127.0.0.1:${echo.port}`);
    writeFileSync(join(cd, 'Caddyfile'), `{\n\tadmin off\n\tdefault_bind 127.0.0.1\n}\n${site}\n`);
    const child = startChild('caddy', 'caddy', ['run', '--config', join(cd, 'Caddyfile'), '--adapter', 'caddyfile'], {
      env: { PATH: process.env.PATH, HOME: cd, XDG_CONFIG_HOME: join(cd, 'config'), XDG_DATA_HOME: join(cd, 'data') },
      cwd: cd,
      logFile: join(cd, 'caddy.log'),
    });
    children.push(child);
    await waitForHttp(child, port, `localhost:${port}`);
    await expectProtected(`http://localhost:${port}/first?app=1`);
  });

  async function expectProtected(target: string): Promise<void> {
    const context = await browser.newContext();
    const page = await context.newPage();
    // A forged identity header from the visitor never reaches the app.
    await context.setExtraHTTPHeaders({ 'Remote-User': 'admin' });
    await page.goto(target);
    await page.waitForURL(`${loginPage()}?redirect_uri=${encodeURIComponent(target)}`);
    await logIn(page);
    await page.waitForURL(`http://localhost:${gatewayPort}/continue?**`);
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL(target);
    await expect(echoed(page, 'remote-user')).resolves.toBe('demo');
    await context.close();
  }
});
