import { connect } from 'node:net';
import { BcryptPasswordHasher } from '../../../src/adapters/crypto/bcrypt-password-hasher';
import { StaticUserStore } from '../../../src/adapters/users/static-user-store';
import { TOKENS } from '../../../src/composition/tokens';
import { basic, hashOf, TEST_SECRET, TOTP_SECRET } from '../../support/credentials';
import { startGateway, type RunningGateway } from '../../support/server';
import { askForwardAuth, BROWSER_ACCEPT, expectEnvelope, forwardedBy, forwardedFor, loginCookie, SESSION_COOKIE } from '../../support/http';

const APP_URL = 'https://auth.example.test';
const LOGIN = `${APP_URL}/login`;
const ORIGINAL = 'https://app.example.test/dashboard?tab=1&q=a%20b';
const PROXIES = ['traefik', 'nginx', 'caddy'] as const;

const loginUrlFor = (original: string): string => `${LOGIN}?redirect_uri=${encodeURIComponent(original)}`;

describe('GET /api/auth/:proxy', () => {
  let gw: RunningGateway;
  let alice: string;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')},carol:${hashOf('carol-pw')}:${TOTP_SECRET}`, LOGIN_MAX_RETRIES: '0' });
    alice = await loginCookie(gw, 'alice', 'alice-pw');
  });
  afterAll(() => gw.close());

  it.each(['apache', 'TRAEFIK', '', 'traefik/extra'])('answers the unknown proxy "%s" with 400 naming traefik, nginx and caddy', async (proxy) => {
    const body = await expectEnvelope(await askForwardAuth(gw, proxy, { cookie: alice }), 400);
    expect(body.message).toMatch(/traefik/);
    expect(body.message).toMatch(/nginx/);
    expect(body.message).toMatch(/caddy/);
  });

  describe.each(PROXIES)('for %s', (proxy) => {
    it('lets a session through with 200 Authenticated and the identity headers', async () => {
      const res = await askForwardAuth(gw, proxy, { cookie: alice, accept: BROWSER_ACCEPT, ...forwardedBy(proxy, ORIGINAL) });
      expect(await expectEnvelope(res, 200)).toEqual({ status: 200, code: 'authenticated', message: 'Authenticated' });
      expect(res.headers.get('remote-user')).toBe('alice');
      expect(res.headers.get('remote-name')).toBe('alice');
      expect(res.headers.get('remote-email')).toBe('alice@example.test');
      expect(res.headers.get('remote-groups')).toBeNull();
      expect(res.headers.get('location')).toBeNull();
    });

    it('lets HTTP Basic credentials through with 200 Authenticated', async () => {
      const res = await askForwardAuth(gw, proxy, { authorization: basic('alice', 'alice-pw'), ...forwardedBy(proxy, ORIGINAL) });
      expect(res.status).toBe(200);
      expect(res.headers.get('remote-user')).toBe('alice');
    });

    it('never echoes Remote-* headers the client sent', async () => {
      const forged = { 'remote-user': 'admin', 'remote-groups': 'admins', 'remote-email': 'admin@example.test' };
      const anonymous = await askForwardAuth(gw, proxy, { ...forged, ...forwardedBy(proxy, ORIGINAL) });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('remote-user')).toBeNull();
      expect(anonymous.headers.get('remote-groups')).toBeNull();
      const loggedIn = await askForwardAuth(gw, proxy, { ...forged, cookie: alice, ...forwardedBy(proxy, ORIGINAL) });
      expect(loggedIn.headers.get('remote-user')).toBe('alice');
      expect(loggedIn.headers.get('remote-email')).toBe('alice@example.test');
      expect(loggedIn.headers.get('remote-groups')).toBeNull();
    });

    it('answers API mode (Accept without text/html) with a 401 JSON envelope and never a redirect', async () => {
      for (const accept of ['application/json', '*/*']) {
        const res = await askForwardAuth(gw, proxy, { accept, ...forwardedBy(proxy, ORIGINAL) });
        expect(await expectEnvelope(res, 401)).toEqual({ status: 401, code: 'unauthorized', message: 'Unauthorized' });
        expect(res.headers.get('location')).toBeNull();
      }
    });

    it('answers Basic credentials that fail with 401 JSON even when the client accepts HTML (API mode)', async () => {
      const res = await askForwardAuth(gw, proxy, { authorization: basic('alice', 'wrong'), accept: BROWSER_ACCEPT, ...forwardedBy(proxy, ORIGINAL) });
      expect(await expectEnvelope(res, 401)).toEqual({ status: 401, code: 'unauthorized', message: 'Unauthorized' });
      expect(res.headers.get('location')).toBeNull();
    });

    it('refuses Basic credentials of an account with TOTP, even with the right password', async () => {
      const res = await askForwardAuth(gw, proxy, { authorization: basic('carol', 'carol-pw'), ...forwardedBy(proxy, ORIGINAL) });
      expect(res.status).toBe(401);
      expect(res.headers.get('remote-user')).toBeNull();
    });

    it('answers HEAD like GET, without a body', async () => {
      const ok = await askForwardAuth(gw, proxy, { cookie: alice, ...forwardedBy(proxy, ORIGINAL) }, 'HEAD');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('remote-user')).toBe('alice');
      expect(await ok.text()).toBe('');
      const no = await askForwardAuth(gw, proxy, forwardedBy(proxy, ORIGINAL), 'HEAD');
      expect(no.status).toBe(401);
      expect(await no.text()).toBe('');
    });
  });

  it.each(['traefik', 'caddy'])('redirects a browser on %s with 302 to APP_URL/login?redirect_uri=<original URL>', async (proxy) => {
    const res = await askForwardAuth(gw, proxy, { accept: BROWSER_ACCEPT, ...forwardedFor(ORIGINAL) });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(loginUrlFor(ORIGINAL));
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('answers a browser on nginx with 401 and the login URL in X-Portcullis-Location (auth_request cannot follow a redirect)', async () => {
    const res = await askForwardAuth(gw, 'nginx', { accept: BROWSER_ACCEPT, 'x-original-url': ORIGINAL });
    expect(await expectEnvelope(res, 401)).toEqual({ status: 401, code: 'unauthorized', message: 'Unauthorized' });
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('x-portcullis-location')).toBe(loginUrlFor(ORIGINAL));
  });

  it('reads the original request from X-Original-URL on nginx', async () => {
    const res = await askForwardAuth(gw, 'nginx', { accept: BROWSER_ACCEPT, 'x-original-url': ORIGINAL });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-portcullis-location')).toBe(loginUrlFor(ORIGINAL));
    const ok = await askForwardAuth(gw, 'nginx', { cookie: alice, 'x-original-url': ORIGINAL });
    expect(ok.status).toBe(200);
  });

  it('decides on X-Original-URL on nginx and ignores X-Forwarded-Host/-Uri/-Proto a client sent along', async () => {
    const res = await askForwardAuth(gw, 'nginx', {
      accept: BROWSER_ACCEPT,
      'x-original-url': ORIGINAL,
      'x-forwarded-proto': 'http',
      'x-forwarded-host': 'other.example.test',
      'x-forwarded-uri': '/elsewhere',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-portcullis-location')).toBe(loginUrlFor(ORIGINAL));
  });

  it('answers nginx without X-Original-URL with 400 naming it, never reading X-Forwarded-* instead', async () => {
    const res = await askForwardAuth(gw, 'nginx', { cookie: alice, accept: BROWSER_ACCEPT, ...forwardedFor(ORIGINAL) });
    expect((await expectEnvelope(res, 400)).message).toBe('Missing forwarded header X-Original-URL');
    expect(res.headers.get('remote-user')).toBeNull();
  });

  it.each(['traefik', 'caddy'])('ignores X-Original-URL on %s', async (proxy) => {
    const res = await askForwardAuth(gw, proxy, {
      accept: BROWSER_ACCEPT,
      ...forwardedFor(ORIGINAL),
      'x-original-url': 'https://other.example.test/elsewhere',
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(loginUrlFor(ORIGINAL));
  });

  it('answers any method nginx forwards with the same decision', async () => {
    const res = await askForwardAuth(gw, 'nginx', { cookie: alice, 'x-original-url': ORIGINAL }, 'POST');
    expect(res.status).toBe(200);
    expect(res.headers.get('remote-user')).toBe('alice');
  });

  it('compares hosts lower-cased and builds redirect_uri from the lower-cased host', async () => {
    const res = await askForwardAuth(gw, 'traefik', {
      accept: BROWSER_ACCEPT,
      'x-forwarded-proto': 'HTTPS',
      'x-forwarded-host': 'App.EXAMPLE.Test',
      'x-forwarded-uri': '/Path',
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(loginUrlFor('https://app.example.test/Path'));
  });

  it('keeps a non-default port of the original host in redirect_uri', async () => {
    const res = await askForwardAuth(gw, 'caddy', { accept: BROWSER_ACCEPT, ...forwardedFor('https://app.example.test:8443/x') });
    expect(res.headers.get('location')).toBe(loginUrlFor('https://app.example.test:8443/x'));
  });

  it('redirects to the plain login page when no forwarded headers arrive at all', async () => {
    const res = await askForwardAuth(gw, 'traefik', { accept: BROWSER_ACCEPT });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(LOGIN);
  });

  it('documents the traefik ForwardAuth contract: X-Forwarded-Method/Proto/Host/Uri/For describe the original request', async () => {
    // What traefik's forwardAuth middleware sends (trustForwardHeader off): the method, scheme, host and
    // path+query of the original request, and the client address appended to X-Forwarded-For.
    const traefik = {
      accept: BROWSER_ACCEPT,
      'x-forwarded-method': 'POST',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'app.example.test',
      'x-forwarded-uri': '/dashboard?tab=1&q=a%20b',
      'x-forwarded-for': '203.0.113.9',
      'x-real-ip': '203.0.113.9',
    };
    const anonymous = await askForwardAuth(gw, 'traefik', traefik);
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toBe(loginUrlFor(ORIGINAL));
    const loggedIn = await askForwardAuth(gw, 'traefik', { ...traefik, cookie: alice });
    expect(loggedIn.status).toBe(200);
    expect(loggedIn.headers.get('remote-user')).toBe('alice');
  });
});

describe('forward auth facing hostile forwarded headers', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')}` });
  });
  afterAll(() => gw.close());

  /** The answer may refuse (400/401) or send to our own login page, whose redirect_uri (if any) stays on the cookie domain. */
  async function expectContained(res: Response): Promise<void> {
    expect([302, 400, 401, 431]).toContain(res.status);
    const location = res.headers.get('location') ?? res.headers.get('x-portcullis-location');
    if (location !== null) {
      const target = new URL(location);
      expect(target.origin).toBe(APP_URL);
      expect(target.pathname).toBe('/login');
      const back = target.searchParams.get('redirect_uri');
      if (back !== null) {
        const host = new URL(back).hostname;
        expect(host === 'example.test' || host.endsWith('.example.test')).toBe(true);
        expect(back).not.toMatch(/[\\\r\n]/);
      }
    }
    if (res.status !== 431) await expectEnvelope(res, res.status);
  }

  const hosts = [
    'evil.com',
    'example.test.evil.com',
    'evil.com, app.example.test',
    'user@host',
    'app.example.test@evil.com',
    'evil.com\\@app.example.test',
    'app.example.test\\evil.com',
    '//evil',
    'app.example.test/evil',
    'app.example.test:99999999',
    'app.example.test:443:443',
    '[::1',
    'xn--',
    '.',
    '',
    ' ',
    `${'a'.repeat(63)}.`.repeat(5) + 'example.test',
    `h${'x'.repeat(5000)}.example.test`,
  ];
  const uris = [
    '//evil.com/x',
    '/\\evil.com',
    '\\\\evil.com',
    'https://evil.com/',
    '@evil.com',
    'evil',
    '/%0d%0aSet-Cookie:%20x=1',
    '/a b',
    '/..//evil.com',
    `/${'x'.repeat(10_000)}`,
    '/\u00e9',
    '/%2F%2Fevil.com',
  ];
  const protos = ['javascript', 'https://evil.com', 'ftp', 'http, https', ''];
  const originalUrls = [
    'https://evil.com/',
    'https://app.example.test@evil.com/',
    'javascript:alert(1)',
    '//evil.com/',
    'https://app.example.test\\@evil.com/',
    'https:/app.example.test/',
    'HTTPS://APP.EXAMPLE.TEST/x',
    'not a url',
  ];

  it.each(PROXIES)('never answers 500 or redirects off the cookie domain for hostile X-Forwarded-Host values (%s)', async (proxy) => {
    for (const host of hosts) {
      await expectContained(
        await askForwardAuth(gw, proxy, { accept: BROWSER_ACCEPT, 'x-forwarded-proto': 'https', 'x-forwarded-host': host, 'x-forwarded-uri': '/' }),
      );
    }
  });

  it.each(PROXIES)('never answers 500 or redirects off the cookie domain for hostile X-Forwarded-Uri values (%s)', async (proxy) => {
    for (const uri of uris) {
      await expectContained(
        await askForwardAuth(gw, proxy, {
          accept: BROWSER_ACCEPT,
          'x-forwarded-proto': 'https',
          'x-forwarded-host': 'app.example.test',
          'x-forwarded-uri': uri,
        }),
      );
    }
  });

  it.each(PROXIES)('never answers 500 or redirects off the cookie domain for hostile X-Forwarded-Proto values (%s)', async (proxy) => {
    for (const proto of protos) {
      await expectContained(
        await askForwardAuth(gw, proxy, { accept: BROWSER_ACCEPT, 'x-forwarded-proto': proto, 'x-forwarded-host': 'app.example.test', 'x-forwarded-uri': '/' }),
      );
    }
  });

  it('never answers 500 or points off the cookie domain for hostile X-Original-URL values on nginx', async () => {
    for (const url of originalUrls) await expectContained(await askForwardAuth(gw, 'nginx', { accept: BROWSER_ACCEPT, 'x-original-url': url }));
  });

  it('answers an off-domain original host with the plain login page, not a redirect_uri', async () => {
    for (const host of ['evil.com', 'example.test.evil.com', 'notexample.test']) {
      const res = await askForwardAuth(gw, 'traefik', { accept: BROWSER_ACCEPT, ...forwardedFor(`https://${host}/x`) });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(LOGIN);
    }
  });

  it('answers a malformed forwarded header with 400 naming the header', async () => {
    const res = await askForwardAuth(gw, 'traefik', {
      accept: BROWSER_ACCEPT,
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'user@host',
      'x-forwarded-uri': '/',
    });
    expect((await expectEnvelope(res, 400)).message).toMatch(/X-Forwarded-Host/);
    const uri = await askForwardAuth(gw, 'caddy', {
      accept: BROWSER_ACCEPT,
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'app.example.test',
      'x-forwarded-uri': '//evil.com',
    });
    expect((await expectEnvelope(uri, 400)).message).toMatch(/X-Forwarded-Uri/);
  });

  it('still lets a logged-in user through when the forwarded headers are well-formed but odd', async () => {
    const cookie = await loginCookie(gw, 'alice', 'alice-pw');
    const res = await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor('https://app.example.test/%0d%0a') });
    expect(res.status).toBe(200);
  });

  /** Sends raw bytes (fetch refuses to send what these tests need) and resolves everything the server answered. */
  function rawRequest(request: string): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(gw.url).port), '127.0.0.1');
      let data = '';
      socket.on('data', (d) => {
        data += d.toString('latin1');
        if (/\r\n\r\n/.test(data)) socket.end();
      });
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      socket.write(request);
    });
  }

  it.each([
    ['a bare CR', 'X-Forwarded-Uri: /a\rLocation: https://evil.com\r\n'],
    ['a bare LF', 'X-Forwarded-Uri: /a\nLocation: https://evil.com\r\n'],
    ['a folded continuation line', 'X-Forwarded-Host: app.example.test\r\n evil.com\r\n'],
    ['a NUL byte', 'X-Forwarded-Uri: /a\u0000b\r\n'],
  ])('answers %s inside a forwarded header with 400 or 401, never a 500 or a redirect to it', async (_what, line) => {
    const answer = await rawRequest(`GET /api/auth/traefik HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nX-Forwarded-Proto: https\r\n${line}\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 40[01] /);
    expect(answer).not.toMatch(/evil\.com/);
  });

  it.each(['traefik', 'caddy'])(
    'refuses a comma-joined X-Forwarded-Host or -Proto on %s with 400 naming it, never deciding on the left-most',
    async (proxy) => {
      const host = await askForwardAuth(gw, proxy, {
        accept: BROWSER_ACCEPT,
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'evil.example.test, app.example.test',
        'x-forwarded-uri': '/',
      });
      expect((await expectEnvelope(host, 400)).message).toBe('Repeated forwarded header X-Forwarded-Host');
      const proto = await askForwardAuth(gw, proxy, {
        accept: BROWSER_ACCEPT,
        'x-forwarded-proto': 'http, https',
        'x-forwarded-host': 'app.example.test',
        'x-forwarded-uri': '/',
      });
      expect((await expectEnvelope(proto, 400)).message).toBe('Repeated forwarded header X-Forwarded-Proto');
    },
  );

  it.each([
    [
      'traefik',
      'X-Forwarded-Host',
      'X-Forwarded-Proto: https\r\nX-Forwarded-Host: evil.example.test\r\nX-Forwarded-Host: app.example.test\r\nX-Forwarded-Uri: /\r\n',
    ],
    ['caddy', 'X-Forwarded-Uri', 'X-Forwarded-Proto: https\r\nX-Forwarded-Host: app.example.test\r\nX-Forwarded-Uri: /public\r\nX-Forwarded-Uri: /admin\r\n'],
    ['caddy', 'X-Forwarded-Proto', 'X-Forwarded-Proto: http\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: app.example.test\r\nX-Forwarded-Uri: /\r\n'],
    ['nginx', 'X-Original-URL', 'X-Original-URL: https://evil.example.test/\r\nX-Original-URL: https://app.example.test/\r\n'],
  ])('refuses a header repeated on two lines on %s with 400 naming %s', async (proxy, field, lines) => {
    const answer = await rawRequest(`GET /api/auth/${proxy} HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nConnection: close\r\n${lines}\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain(`Repeated forwarded header ${field}`);
  });

  it('answers forwarded headers past the server header limit with 431, never a 500', async () => {
    const res = await askForwardAuth(gw, 'traefik', { accept: BROWSER_ACCEPT, ...forwardedFor(`https://app.example.test/${'x'.repeat(20_000)}`) });
    expect(res.status).toBe(431);
  });
});

describe('session cookies at forward auth', () => {
  const users = `alice:${hashOf('alice-pw')}`;
  const ask = (gw: RunningGateway, cookie: string): Promise<Response> => askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(ORIGINAL) });

  it('treats a tampered cookie as logged out', async () => {
    const gw = await startGateway({ USERS: users });
    try {
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      const value = cookie.slice(SESSION_COOKIE.length + 1);
      const at = value.length - 10;
      const flipped = `${value.slice(0, at)}${value[at] === 'A' ? 'B' : 'A'}${value.slice(at + 1)}`;
      expect((await ask(gw, `${SESSION_COOKIE}=${flipped}`)).status).toBe(401);
      expect((await ask(gw, `${SESSION_COOKIE}=${value.slice(0, -1)}`)).status).toBe(401);
      expect((await ask(gw, cookie)).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it('treats a cookie sealed under another SECRET as logged out', async () => {
    const first = await startGateway({ USERS: users });
    const other = await startGateway({ USERS: users, SECRET: 'another-secret-another-secret-0123456789' });
    try {
      const cookie = await loginCookie(first, 'alice', 'alice-pw');
      expect((await ask(other, cookie)).status).toBe(401);
    } finally {
      await first.close();
      await other.close();
    }
  });

  it('keeps sessions across a restart with the same SECRET', async () => {
    const before = await startGateway({ USERS: users, SECRET: TEST_SECRET });
    const cookie = await loginCookie(before, 'alice', 'alice-pw');
    await before.close();
    const after = await startGateway({ USERS: users, SECRET: TEST_SECRET });
    try {
      const res = await ask(after, cookie);
      expect(res.status).toBe(200);
      expect(res.headers.get('remote-user')).toBe('alice');
    } finally {
      await after.close();
    }
  });

  it('treats an expired cookie as logged out', async () => {
    let now = Date.now();
    const gw = await startGateway({ USERS: users, SESSION_EXPIRY: '60' }, { [TOKENS.Clock]: { now: () => now } });
    try {
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      now += 59_000;
      expect((await ask(gw, cookie)).status).toBe(200);
      now += 2_000;
      expect((await ask(gw, cookie)).status).toBe(401);
      const user = (await (await fetch(`${gw.url}/api/user`, { headers: { cookie } })).json()) as { isLoggedIn: boolean };
      expect(user.isLoggedIn).toBe(false);
    } finally {
      await gw.close();
    }
  });

  it('gives the cookie a Max-Age of the session lifetime measured on the gateway clock', async () => {
    const gw = await startGateway({ USERS: users, SESSION_EXPIRY: '3600' }, { [TOKENS.Clock]: { now: () => Date.now() - 600_000 } });
    try {
      const res = await fetch(`${gw.url}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'alice', password: 'alice-pw' }),
      });
      expect(res.headers.getSetCookie()[0]).toMatch(/; Max-Age=3600;/);
    } finally {
      await gw.close();
    }
  });
});

describe('identity headers', () => {
  it('strips control and non-printable characters from Remote-* values and sends Remote-Groups when there are groups', async () => {
    const hash = hashOf('eve-pw');
    const store = new StaticUserStore(
      [
        {
          username: 'eve\u0000',
          name: 'Eve\u0007 \u5c71\u7530 O\u2028Neil',
          email: 'eve@example.test\u001b',
          groups: ['admins', 'dev\u007f'],
          credentialVersion: hash,
        },
      ],
      new BcryptPasswordHasher(),
    );
    const gw = await startGateway({ USERS: `placeholder:${hashOf('x')}` }, { [TOKENS.UserStore]: store });
    try {
      const cookie = await loginCookie(gw, 'eve\u0000', 'eve-pw');
      const res = await askForwardAuth(gw, 'caddy', { cookie, ...forwardedFor(ORIGINAL) });
      expect(res.status).toBe(200);
      expect(res.headers.get('remote-user')).toBe('eve');
      expect(res.headers.get('remote-name')).toBe('Eve  ONeil');
      expect(res.headers.get('remote-email')).toBe('eve@example.test');
      expect(res.headers.get('remote-groups')).toBe('admins,dev');
    } finally {
      await gw.close();
    }
  });
});

describe('forward auth and the lock', () => {
  it('answers Basic credentials of a locked account with 429 and Retry-After, even with the right password', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')}`, LOGIN_MAX_RETRIES: '2', LOGIN_TIMEOUT: '60' });
    try {
      for (let i = 0; i < 2; i += 1) expect((await askForwardAuth(gw, 'traefik', { authorization: basic('alice', `bad-${i}`) })).status).toBe(401);
      const res = await askForwardAuth(gw, 'traefik', { authorization: basic('alice', 'alice-pw') });
      const body = await expectEnvelope(res, 429);
      expect(body.message).toMatch(/^Too many failed login attempts\. Try again in \d+ seconds$/);
      expect(body.message).toContain(`in ${res.headers.get('retry-after')} seconds`);
      expect(body).toMatchObject({ code: 'account_locked', retryAfter: Number(res.headers.get('retry-after')) });
    } finally {
      await gw.close();
    }
  });
});
