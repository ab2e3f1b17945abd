import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '../e2e/support/stack';
import type { Served } from './support/koa-app';
import { rawHttp, requestHead, type RawAnswer } from './support/raw-http';
import { HOSTS, loginThroughNginx, PASSWORDS, startSecurityStack, type AppName, type ProxyName, type SecurityStack } from './support/stack';

/**
 * Review item 6: two `portcullis-session` cookies. Any page on the cookie's domain can plant a
 * second one (document.cookie with `domain=` the shared domain and a longer path); browsers send
 * the cookie with the longer path first. When the gateway decides on the first copy and the proxy
 * cuts out only the first copy, the application receives the person's real session cookie, a login
 * to every protected application. Tried in Chromium through the shipped nginx and Caddy
 * configurations, then with raw HTTP for the spellings a browser does not send.
 */

const PROXIES: readonly ProxyName[] = ['nginx', 'caddy'];
const APPS: readonly AppName[] = ['koa', 'flask'];
const SESSION = 'portcullis-session';

let stack: SecurityStack;
let browser: Browser;
const tokens = { alice: '', bob: '' };

async function servedFor(probe: string): Promise<Served[]> {
  return [...(await stack.served('koa', probe)), ...(await stack.served('flask', probe))];
}

/** Every session-cookie value an upstream received, in any of the requests it served. */
function sessionValuesReceived(served: readonly Served[]): string[] {
  return served.flatMap((s) =>
    (s.headers.cookie ?? '')
      .split(';')
      .map((c) => c.trim())
      .filter((c) => c.startsWith(`${SESSION}=`))
      .map((c) => c.slice(SESSION.length + 1)),
  );
}

beforeAll(async () => {
  stack = await startSecurityStack();
  tokens.alice = (await loginThroughNginx(stack, 'alice')).slice(SESSION.length + 1);
  tokens.bob = (await loginThroughNginx(stack, 'bob')).slice(SESSION.length + 1);
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe.each(PROXIES)('through %s (configured from examples/)', (proxy) => {
  const origin = (host: string): string => `http://${host}:${stack.proxies[proxy]}`;

  describe.each(APPS)('in Chromium, on the %s app', (app) => {
    let context: BrowserContext;
    let page: Page;

    beforeEach(async () => {
      context = await browser.newContext();
      page = await context.newPage();
      // Alice logs in on the login host as the login page does: the browser stores the cookie the gateway sets.
      await page.goto(`${origin(HOSTS.auth)}/login`);
      const status = await page.evaluate(
        async (body) => {
          const res = await fetch('/api/login', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
          return res.status;
        },
        JSON.stringify({ username: 'alice', password: PASSWORDS.alice }),
      );
      expect(status).toBe(200);
    });

    afterEach(async () => {
      await context?.close();
    });

    it('the control: with her one session cookie she reaches the app, which never sees the cookie', async () => {
      const probe = randomUUID();
      await page.setExtraHTTPHeaders({ 'x-probe': probe });
      const res = await page.goto(`${origin(HOSTS[app])}/public/x`);
      expect(res?.status()).toBe(200);
      const served = await servedFor(probe);
      expect(served.map((s) => s.headers['remote-user'])).toEqual(['alice']);
      expect(sessionValuesReceived(served)).toEqual([]);
    });

    it("a session cookie planted by a page on the cookie's domain with a longer path never smuggles hers to the app", async () => {
      // Any page on the shared domain (here one of the application's own) plants the attacker's
      // own valid session for a longer path: the browser now sends it before Alice's.
      await page.goto(`${origin(HOSTS[app])}/public/plant`);
      await page.evaluate(
        ([name, value]) => {
          (globalThis as unknown as { document: { cookie: string } }).document.cookie = `${name}=${value}; domain=example.test; path=/public`;
        },
        [SESSION, tokens.bob] as const,
      );
      const probe = randomUUID();
      await page.setExtraHTTPHeaders({ 'x-probe': probe });
      const res = await page.goto(`${origin(HOSTS[app])}/public/x`);
      const sent = await res?.request().allHeaders();
      // The premise: the browser sent both, the planted one first.
      const hers = (await context.cookies()).find((c) => c.name === SESSION && c.path === '/')?.value;
      expect((sent?.cookie ?? '').split(';').map((c) => c.trim())).toEqual([`${SESSION}=${tokens.bob}`, `${SESSION}=${hers}`]);
      const served = await servedFor(probe);
      expect({ proxy, app, received: sessionValuesReceived(served) }).toEqual({ proxy, app, received: [] });
      expect(served).toEqual([]);
      expect(res?.status()).toBeGreaterThanOrEqual(400);
    });
  });

  describe('raw HTTP: spellings of two session cookies', () => {
    const send = async (host: string, target: string, cookieLines: readonly string[]): Promise<{ answer: RawAnswer; served: Served[] }> => {
      const probe = randomUUID();
      const headers: Array<readonly [string, string]> = [
        ['Host', `${host}:${stack.proxies[proxy]}`],
        ['X-Probe', probe],
        ['Accept', 'application/json'],
        ...cookieLines.map((c) => ['Cookie', c] as const),
      ];
      const answer = await rawHttp(stack.proxies[proxy], requestHead('GET', target, headers));
      return { answer, served: await servedFor(probe) };
    };
    const planted = (): string => `${SESSION}=${tokens.bob}`;
    const real = (): string => `${SESSION}=${tokens.alice}`;
    const SPELLINGS: ReadonlyArray<readonly [string, () => string[]]> = [
      ['planted first in one header', () => [`${planted()}; ${real()}`]],
      ['real first in one header', () => [`${real()}; ${planted()}`]],
      ['between other cookies', () => [`theme=dark; ${planted()}; lang=en; ${real()}; x=1`]],
      ['three copies', () => [`${planted()}; a=1; ${planted()}; ${real()}`]],
      ['two Cookie header lines', () => [planted(), real()]],
      ['two Cookie header lines after other cookies', () => [`theme=dark; ${planted()}`, `lang=en; ${real()}`]],
      ['an empty planted copy', () => [`${SESSION}=; ${real()}`]],
    ];

    it.each(APPS.flatMap((app) => SPELLINGS.map(([name, cookies]) => [app, name, cookies] as const)))(
      'on the %s app, %s: refused, nothing served, no session cookie reaches the app',
      async (app, _name, cookies) => {
        const { answer, served } = await send(HOSTS[app], '/public/x', cookies());
        expect(sessionValuesReceived(served)).toEqual([]);
        expect(served).toEqual([]);
        expect(answer.status).toBeGreaterThanOrEqual(400);
      },
    );

    it.each(APPS)('on the %s app, one session cookie among others still passes, and only the others reach the app', async (app) => {
      const { answer, served } = await send(HOSTS[app], '/public/x', [`theme=dark; ${real()}; lang=en`]);
      expect(answer.status).toBe(200);
      expect(served).toHaveLength(1);
      expect(served[0].headers['remote-user']).toBe('alice');
      expect(served[0].headers.cookie).toBe('theme=dark; lang=en');
    });

    it("the gateway's own routes on the login host answer two session cookies 400 with the JSON envelope", async () => {
      for (const target of ['/api/user', '/api/app', '/login']) {
        const { answer } = await send(HOSTS.auth, target, [`${planted()}; ${real()}`]);
        expect([target, answer.status]).toEqual([target, 400]);
        expect(answer.headers['content-type']).toMatch(/application\/json/);
        expect(JSON.parse(answer.body)).toMatchObject({ status: 400, code: 'several_session_cookies', message: expect.any(String) });
      }
      const one = await send(HOSTS.auth, '/api/user', [real()]);
      expect(one.answer.status).toBe(200);
    });
  });
});
