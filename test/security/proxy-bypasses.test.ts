import { randomUUID } from 'node:crypto';
import type { Served } from './support/koa-app';
import { rawHttp, requestHead, type RawAnswer } from './support/raw-http';
import {
  HOSTS,
  loginThroughNginx,
  PASSWORDS,
  startSecurityStack,
  UPSTREAM_BASIC_PASSWORD,
  type AppName,
  type ProxyName,
  type SecurityStack,
} from './support/stack';

/**
 * The attack corpus of "Close the bypasses", tried as an attacker would: raw HTTP to real nginx
 * and Caddy configured from examples/, in front of a Koa and a Flask application that route by
 * path prefix. Every assertion is on what an upstream actually served (each request carries an
 * X-Probe id the upstreams record), not only on the status the client saw.
 */

const PROXIES: readonly ProxyName[] = ['nginx', 'caddy'];
const APPS: readonly AppName[] = ['koa', 'flask'];
type Who = 'alice' | 'bob' | 'anonymous';
/** The people an admin area must be kept from: a logged-in non-admin and nobody. */
const OUTSIDERS: readonly Who[] = ['bob', 'anonymous'];

let stack: SecurityStack;
const cookies: Record<'alice' | 'bob', string> = { alice: '', bob: '' };

function hostHeader(host: string, proxy: ProxyName): string {
  return `${host}:${stack.proxies[proxy]}`;
}

interface Attempt {
  readonly proxy: ProxyName;
  readonly who: Who;
  /** The request target as written on the request line (origin-form path or absolute-form URL). */
  readonly target: string;
  /** The Host header; omitted when null. */
  readonly host: string | null;
  readonly headers?: ReadonlyArray<readonly [string, string]>;
  readonly method?: string;
}

interface Outcome {
  readonly answer: RawAnswer;
  /** What each upstream served for this request. */
  readonly served: readonly Served[];
  readonly probe: string;
}

async function servedFor(probe: string): Promise<Served[]> {
  return [...(await stack.served('koa', probe)), ...(await stack.served('flask', probe))];
}

async function attempt(a: Attempt): Promise<Outcome> {
  const probe = randomUUID();
  const headers: Array<readonly [string, string]> = [];
  if (a.host !== null) headers.push(['Host', a.host]);
  headers.push(['X-Probe', probe]);
  if (!(a.headers ?? []).some(([name]) => name.toLowerCase() === 'accept')) headers.push(['Accept', 'application/json']);
  if (a.who !== 'anonymous') headers.push(['Cookie', cookies[a.who]]);
  headers.push(...(a.headers ?? []));
  const answer = await rawHttp(stack.proxies[a.proxy], requestHead(a.method ?? 'GET', a.target, headers));
  return { answer, served: await servedFor(probe), probe };
}

/** The failure message names the attempt and what came back, so a red test says which bypass opened. */
function describeOutcome(a: Attempt, o: Outcome): string {
  return `${a.who} ${a.method ?? 'GET'} ${a.target} (Host ${a.host ?? 'none'}) through ${a.proxy}: status ${o.answer.status}, upstream served ${JSON.stringify(o.served.map((s) => `${s.app}:${s.area}:${s.raw}`))}`;
}

function adminServed(o: Outcome): Served[] {
  return o.served.filter((s) => s.area === 'admin');
}

async function expectNoAdmin(a: Attempt): Promise<Outcome> {
  const o = await attempt(a);
  expect({ attempt: describeOutcome(a, o), admin: adminServed(o).length }).toEqual({ attempt: describeOutcome(a, o), admin: 0 });
  // The client's copy agrees: nothing the upstream said about its admin area came back.
  expect(o.answer.body).not.toMatch(/"area"\s*:\s*"admin"/);
  return o;
}

beforeAll(async () => {
  stack = await startSecurityStack();
  cookies.alice = await loginThroughNginx(stack, 'alice');
  cookies.bob = await loginThroughNginx(stack, 'bob');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe.each(PROXIES)('through %s (configured from examples/)', (proxy) => {
  const appHost = (app: AppName): string => hostHeader(HOSTS[app], proxy);

  describe('controls: the suite can see a breach', () => {
    it.each(APPS)('an admin reaches /admin/ of the %s app, and the upstream reports serving its admin area to her', async (app) => {
      const o = await attempt({ proxy, who: 'alice', target: '/admin/secret', host: appHost(app) });
      expect(o.answer.status).toBe(200);
      expect(adminServed(o)).toHaveLength(1);
      expect(adminServed(o)[0]).toMatchObject({ app, headers: { 'remote-user': 'alice', 'remote-groups': 'admin' } });
    });

    it.each(APPS)('a non-admin and an anonymous visitor are refused /admin/ of the %s app, and the upstream serves nothing', async (app) => {
      for (const who of OUTSIDERS) {
        const o = await attempt({ proxy, who, target: '/admin/secret', host: appHost(app) });
        expect([who, o.answer.status]).toEqual([who, who === 'bob' ? 403 : 401]);
        expect(o.served).toEqual([]);
      }
    });

    it.each(APPS)('anyone reaches /public/ of the %s app, which the upstream serves as public', async (app) => {
      const o = await attempt({ proxy, who: 'anonymous', target: '/public/x', host: appHost(app) });
      expect(o.answer.status).toBe(200);
      expect(o.served.map((s) => [s.app, s.area])).toEqual([[app, 'public']]);
    });
  });

  describe('item 1: the client does not choose the request the decision is about', () => {
    it.each(APPS)('on the %s app, client X-Forwarded-Host/-Uri/-Proto naming a public path of another host do not open /admin/', async (app) => {
      for (const who of OUTSIDERS) {
        for (const host of [HOSTS.open, HOSTS[app]]) {
          await expectNoAdmin({
            proxy,
            who,
            target: '/admin/secret',
            host: appHost(app),
            headers: [
              ['X-Forwarded-Host', hostHeader(host, proxy)],
              ['X-Forwarded-Uri', '/public/x'],
              ['X-Forwarded-Proto', 'https'],
            ],
          });
        }
      }
    });

    it.each(APPS)('on the %s app, a client X-Original-URL (and X-Original-Method) naming a public path does not open /admin/', async (app) => {
      for (const who of OUTSIDERS) {
        for (const host of [HOSTS.open, HOSTS[app]]) {
          await expectNoAdmin({
            proxy,
            who,
            target: '/admin/secret',
            host: appHost(app),
            headers: [
              ['X-Original-URL', `http://${hostHeader(host, proxy)}/public/x`],
              ['X-Original-Method', 'GET'],
            ],
          });
        }
      }
    });

    it.each(APPS)('on the %s app, repeated and comma-joined X-Forwarded-Host values do not open /admin/', async (app) => {
      const open = hostHeader(HOSTS.open, proxy);
      for (const who of OUTSIDERS) {
        await expectNoAdmin({
          proxy,
          who,
          target: '/admin/secret',
          host: appHost(app),
          headers: [
            ['X-Forwarded-Host', open],
            ['X-Forwarded-Host', appHost(app)],
          ],
        });
        await expectNoAdmin({
          proxy,
          who,
          target: '/admin/secret',
          host: appHost(app),
          headers: [
            ['X-Forwarded-Host', `${open}, ${appHost(app)}`],
            ['X-Forwarded-Proto', 'https, http'],
          ],
        });
        await expectNoAdmin({
          proxy,
          who,
          target: '/admin/secret',
          host: appHost(app),
          headers: [
            ['X-Forwarded-Uri', '/public/x'],
            ['X-Forwarded-Uri', '/admin/secret'],
          ],
        });
      }
    });

    it.each(APPS)('on the %s app, a client X-Forwarded-For naming a bypass address does not let an anonymous visitor in', async (app) => {
      await expectNoAdmin({ proxy, who: 'anonymous', target: '/admin/secret', host: appHost(app), headers: [['X-Forwarded-For', '10.9.0.7']] });
      await expectNoAdmin({
        proxy,
        who: 'anonymous',
        target: '/admin/secret',
        host: appHost(app),
        headers: [
          ['X-Forwarded-For', '10.9.0.7, 10.9.0.8'],
          ['X-Real-IP', '10.9.0.7'],
          ['Forwarded', 'for=10.9.0.7'],
        ],
      });
    });

    it.each(APPS)("the %s upstream gets the forwarding headers the proxy set, never the client's", async (app) => {
      const o = await attempt({
        proxy,
        who: 'anonymous',
        target: '/public/x',
        host: appHost(app),
        headers: [
          ['X-Forwarded-For', '10.9.0.7'],
          ['X-Forwarded-Host', 'evil.example.net'],
          ['X-Forwarded-Proto', 'https'],
          ['X-Forwarded-Uri', '/admin/secret'],
          ['X-Original-URL', '/admin/secret'],
        ],
      });
      expect(o.served).toHaveLength(1);
      const seen = o.served[0].headers;
      expect(seen['x-forwarded-for']).toBe('127.0.0.1');
      expect(seen['x-forwarded-proto']).toBe('http');
      expect([HOSTS[app], appHost(app)]).toContain(seen['x-forwarded-host']);
      expect(seen['x-forwarded-uri']).toBeNull();
      expect(seen['x-original-url']).toBeNull();
    });

    it('a login redirect names the application the proxy serves, never a host a client put in a forwarding header', async () => {
      const o = await attempt({
        proxy,
        who: 'anonymous',
        target: '/admin/secret',
        host: appHost('koa'),
        headers: [
          ['Accept', 'text/html'],
          ['X-Forwarded-Host', 'evil.example.net'],
          ['X-Forwarded-Proto', 'https'],
          ['X-Original-URL', 'https://evil.example.net/steal'],
        ],
      });
      expect(o.answer.status).toBe(302);
      const location = new URL(o.answer.headers.location);
      expect(location.origin).toBe(`http://${HOSTS.auth}:${stack.proxies.nginx}`);
      expect(location.searchParams.get('redirect_uri')).toBe(`http://${appHost('koa')}/admin/secret`);
      expect(o.served).toEqual([]);
    });
  });

  describe('item 2: a path the gateway and the upstream could read differently never widens access', () => {
    const AMBIGUOUS = [
      '/admin/..;/public/x',
      '/admin/%2e%2e/public/x',
      '/admin/..%2fpublic/x',
      '/admin/..%5cpublic/x',
      '/admin/%2E%2E/public/x',
      '/public/..;/admin/x',
      '/public/%2e%2e/admin/x',
      '//admin/x',
      '/admin;x/x',
      '/%61dmin/x',
      '/ADMIN/x',
      '/admin/./x',
      '/public/../admin/x',
    ];
    const cases = APPS.flatMap((app) => AMBIGUOUS.map((path) => [path, app] as const));
    it.each(cases)('%s on the %s app never serves the admin area to a non-admin or an anonymous visitor', async (path, app) => {
      for (const who of OUTSIDERS) await expectNoAdmin({ proxy, who, target: path, host: appHost(app) });
    });
  });

  describe('item 3: the host decided on is the host whose upstream serves the request', () => {
    it.each(APPS)('an absolute-form target for the %s app with another Host header is decided for that app', async (app) => {
      for (const other of [HOSTS.open, HOSTS.auth, HOSTS.unknown]) {
        await expectNoAdmin({ proxy, who: 'bob', target: `http://${appHost(app)}/admin/secret`, host: hostHeader(other, proxy) });
      }
    });

    it.each(APPS)('a Host header naming another host is never answered by the %s app', async (app) => {
      for (const other of [HOSTS.open, HOSTS.unknown, '127.0.0.1', `${HOSTS[app]}.evil.example.net`]) {
        const o = await expectNoAdmin({ proxy, who: 'bob', target: '/admin/secret', host: hostHeader(other, proxy) });
        expect(o.served).toEqual([]);
      }
    });

    it('a Host no site names is refused by the proxy without an answer', async () => {
      for (const host of [HOSTS.open, HOSTS.unknown, '127.0.0.1']) {
        const o = await attempt({ proxy, who: 'bob', target: '/admin/secret', host: hostHeader(host, proxy) });
        expect([host, o.answer.status]).toEqual([host, null]);
        expect(o.served).toEqual([]);
      }
    });

    it('an absolute-form target naming an unknown host is refused, whatever the Host header says', async () => {
      for (const host of [HOSTS.koa, HOSTS.flask, HOSTS.auth]) {
        const o = await attempt({ proxy, who: 'alice', target: `http://${hostHeader(HOSTS.unknown, proxy)}/admin/secret`, host: hostHeader(host, proxy) });
        expect([host, o.answer.status]).toEqual([host, null]);
        expect(o.served).toEqual([]);
      }
    });

    it('a request without any Host is refused', async () => {
      const probe = randomUUID();
      const answer = await rawHttp(stack.proxies[proxy], `GET /admin/secret HTTP/1.0\r\nX-Probe: ${probe}\r\nCookie: ${cookies.alice}\r\n\r\n`);
      expect(answer.status === null || answer.status >= 400).toBe(true);
      expect(await servedFor(probe)).toEqual([]);
    });
  });

  describe('item 4: forward auth is not reachable through the public routes', () => {
    const SPELLINGS = [
      '/api/auth/nginx',
      '/api/auth/caddy',
      '/api/auth/traefik',
      '/api/auth',
      '/API/AUTH/nginx',
      '/api/%61uth/nginx',
      '/api//auth/nginx',
      '/api/oauth/../auth/nginx',
      '/api/oauth/..%2fauth/nginx',
      '/api/auth/nginx?x=1',
    ];
    it.each(SPELLINGS)('%s through the login host is 404 and carries no identity and no upstream credential', async (path) => {
      const o = await attempt({
        proxy,
        who: 'alice',
        target: path,
        host: hostHeader(HOSTS.auth, proxy),
        headers: [
          ['X-Original-URL', `http://${appHost('koa')}/public/x`],
          ['X-Forwarded-Host', appHost('koa')],
          ['X-Forwarded-Uri', '/public/x'],
        ],
      });
      expect([path, o.answer.status]).toEqual([path, 404]);
      expect(o.answer.headers['remote-user']).toBeUndefined();
      expect(o.answer.headers.authorization).toBeUndefined();
      expect(o.answer.text).not.toContain(Buffer.from(`svc:${UPSTREAM_BASIC_PASSWORD}`).toString('base64'));
    });

    it('an absolute-form request for /api/auth/nginx on the login host is 404 too', async () => {
      const o = await attempt({
        proxy,
        who: 'alice',
        target: `http://${hostHeader(HOSTS.auth, proxy)}/api/auth/nginx`,
        host: hostHeader(HOSTS.auth, proxy),
        headers: [['X-Original-URL', `http://${appHost('koa')}/public/x`]],
      });
      expect(o.answer.status).toBe(404);
      expect(o.answer.headers.authorization).toBeUndefined();
    });

    it('the login UI and the browser API are reachable through the login host', async () => {
      const page = await attempt({ proxy, who: 'anonymous', target: '/login', host: hostHeader(HOSTS.auth, proxy), headers: [['Accept', 'text/html']] });
      expect(page.answer.status).toBe(200);
      expect(page.answer.headers['content-type']).toMatch(/text\/html/);
      const user = await attempt({ proxy, who: 'bob', target: '/api/user', host: hostHeader(HOSTS.auth, proxy) });
      expect(user.answer.status).toBe(200);
      expect(JSON.parse(user.answer.body)).toMatchObject({ username: 'bob' });
      const app = await attempt({ proxy, who: 'anonymous', target: '/api/app', host: hostHeader(HOSTS.auth, proxy) });
      expect(app.answer.status).toBe(200);
    });

    it("the operators' probes are not routed publicly; unknown API paths get the 404 of the gateway itself", async () => {
      for (const path of ['/api/ready', '/api/health', '/API/READY', '/api', '/api/nope']) {
        const o = await attempt({ proxy, who: 'anonymous', target: path, host: hostHeader(HOSTS.auth, proxy) });
        expect([path, o.answer.status]).toEqual([path, 404]);
      }
      // The liveness answer of the public API (spec endpoint 1) stays public.
      const live = await attempt({ proxy, who: 'anonymous', target: '/api/healthcheck', host: hostHeader(HOSTS.auth, proxy) });
      expect(live.answer.status).toBe(200);
    });
  });

  describe('regressions that already hold', () => {
    it('/api/oauth/url keeps a redirect target only inside the protected domain', async () => {
      const redirectCookie = async (target: string): Promise<string | undefined> => {
        const o = await attempt({
          proxy,
          who: 'anonymous',
          target: `/api/oauth/url/generic?redirect_uri=${encodeURIComponent(target)}`,
          host: hostHeader(HOSTS.auth, proxy),
        });
        expect(o.answer.status).toBe(200);
        return o.answer.setCookies.find((c) => c.startsWith('portcullis-redirect-'));
      };
      expect(await redirectCookie(`http://${appHost('koa')}/x`)).toBeDefined();
      for (const evil of [
        'https://evil.example.net/',
        '//evil.example.net/',
        'https://example.test.evil.example.net/',
        `https://evil.example.net\\@${HOSTS.koa}/`,
        `https://${HOSTS.koa}@evil.example.net/`,
        'javascript:alert(1)',
        '/\\evil.example.net',
        'https://evil.example.net%2f.example.test/',
      ]) {
        expect([evil, await redirectCookie(evil)]).toEqual([evil, undefined]);
      }
    });

    it('a request with both Content-Length and Transfer-Encoding never gets a smuggled /admin/ request served', async () => {
      for (const app of APPS) {
        const [first, smuggled] = [randomUUID(), randomUUID()];
        const inner = `GET /admin/secret HTTP/1.1\r\nHost: ${appHost(app)}\r\nX-Probe: ${smuggled}\r\n\r\n`;
        const body = `0\r\n\r\n${inner}`;
        const head = [
          'POST /public/x HTTP/1.1',
          `Host: ${appHost(app)}`,
          `X-Probe: ${first}`,
          `Cookie: ${cookies.bob}`,
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Transfer-Encoding: chunked',
          '',
          '',
        ].join('\r\n');
        await rawHttp(stack.proxies[proxy], head + body, 3000);
        const reversed = [
          'POST /public/x HTTP/1.1',
          `Host: ${appHost(app)}`,
          `X-Probe: ${first}`,
          'Transfer-Encoding: chunked',
          'Content-Length: 4',
          '',
          '',
        ].join('\r\n');
        await rawHttp(stack.proxies[proxy], `${reversed}0\r\n\r\n${inner}`, 3000);
        expect((await servedFor(smuggled)).filter((s) => s.area === 'admin')).toEqual([]);
        expect((await servedFor(first)).filter((s) => s.area === 'admin')).toEqual([]);
      }
    });

    it('a request with two different Content-Length headers is refused and reaches no upstream', async () => {
      for (const app of APPS) {
        const probe = randomUUID();
        const answer = await rawHttp(
          stack.proxies[proxy],
          [
            'POST /public/x HTTP/1.1',
            `Host: ${appHost(app)}`,
            `X-Probe: ${probe}`,
            'Content-Length: 4',
            'Content-Length: 40',
            'Connection: close',
            '',
            'abcd',
          ].join('\r\n'),
        );
        expect([app, answer.status === null || answer.status === 400]).toEqual([app, true]);
        expect(await servedFor(probe)).toEqual([]);
      }
    });

    it.each(APPS)("client Remote-* headers never reach the %s upstream: only the gateway's identity does", async (app) => {
      const spoof: Array<readonly [string, string]> = [
        ['Remote-User', 'alice'],
        ['Remote-Groups', 'admin'],
        ['Remote-Name', 'Alice'],
        ['Remote-Email', 'alice@example.test'],
        ['remote-user', 'alice'],
        ['Remote_User', 'alice'],
      ];
      const anonymous = await attempt({ proxy, who: 'anonymous', target: '/public/x', host: appHost(app), headers: spoof });
      expect(anonymous.served).toHaveLength(1);
      expect(anonymous.served[0].headers).toMatchObject({ 'remote-user': null, 'remote-groups': null, 'remote-name': null, 'remote-email': null });
      const bob = await attempt({ proxy, who: 'bob', target: '/public/x', host: appHost(app), headers: spoof });
      expect(bob.served).toHaveLength(1);
      expect(bob.served[0].headers).toMatchObject({ 'remote-user': 'bob', 'remote-groups': 'staff' });
    });
  });
});

describe('item 1 at the gateway: behind nginx wired like ingress-nginx (X-Original-URL set, client headers passed through)', () => {
  const proxy: ProxyName = 'ingress-nginx';
  const koaHost = (): string => hostHeader(HOSTS.koa, proxy);

  it('the control: a non-admin is refused /admin/ and an admin reaches it', async () => {
    const bob = await attempt({ proxy, who: 'bob', target: '/admin/secret', host: koaHost() });
    expect(bob.served).toEqual([]);
    const alice = await attempt({ proxy, who: 'alice', target: '/admin/secret', host: koaHost() });
    expect(adminServed(alice)).toHaveLength(1);
  });

  it('client X-Forwarded-Host/-Uri naming a public path of another host are ignored next to X-Original-URL', async () => {
    for (const who of OUTSIDERS) {
      for (const host of [HOSTS.open, HOSTS.koa]) {
        await expectNoAdmin({
          proxy,
          who,
          target: '/admin/secret',
          host: koaHost(),
          headers: [
            ['X-Forwarded-Host', hostHeader(host, proxy)],
            ['X-Forwarded-Uri', '/public/x'],
            ['X-Forwarded-Proto', 'http'],
          ],
        });
      }
    }
  });

  it('a client X-Forwarded-Uri alone does not move the decision to a public path', async () => {
    for (const who of OUTSIDERS) await expectNoAdmin({ proxy, who, target: '/admin/secret', host: koaHost(), headers: [['X-Forwarded-Uri', '/public/x']] });
  });
});

describe('the gateway log after the whole corpus', () => {
  it('never holds a password, a session cookie, the upstream Basic password or a client secret', () => {
    const log = stack.gatewayLog();
    expect(log.length).toBeGreaterThan(0);
    for (const secret of [
      PASSWORDS.alice,
      PASSWORDS.bob,
      UPSTREAM_BASIC_PASSWORD,
      Buffer.from(`svc:${UPSTREAM_BASIC_PASSWORD}`).toString('base64'),
      cookies.alice.split('=')[1],
      cookies.bob.split('=')[1],
      'security-suite-oauth-client-secret',
      'security-suite-secret-security-suite',
    ]) {
      expect(log).not.toContain(secret);
    }
  });
});
