import { BcryptPasswordHasher } from '../../../src/adapters/crypto/bcrypt-password-hasher';
import type { PasswordHasher } from '../../../src/application/ports/password-hasher';
import { UserStoreUnavailableError } from '../../../src/application/ports/user-store';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { cookieFrom, startGateway, type RunningGateway } from '../../support/server';
import { expectEnvelope, loginCookie, postJson, SESSION_COOKIE } from '../../support/http';

const LOCK_MESSAGE = /^Too many failed login attempts\. Try again in (\d+) seconds$/;

describe('POST /api/login', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({
      USERS: [`alice:${hashOf('alice-pw')}`, `Bob@Corp.test:${hashOf('bob-pw')}`, `carol:${hashOf('carol-pw')}:${TOTP_SECRET}`].join(','),
      LOGIN_MAX_RETRIES: '0',
    });
  });
  afterAll(() => gw.close());

  it('logs a local account in with 200 Logged in, totpPending "false" and a session cookie', async () => {
    const res = await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw' });
    expect(await expectEnvelope(res, 200)).toEqual({ status: 200, code: 'logged_in', message: 'Logged in', totpPending: 'false' });
    expect(cookieFrom(res, SESSION_COOKIE)?.value).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
  });

  it('answers an account with TOTP with totpPending "true" and a pending cookie living at most ten minutes', async () => {
    const res = await postJson(gw, '/api/login', { email: 'carol', password: 'carol-pw' });
    expect(await expectEnvelope(res, 200)).toEqual({ status: 200, code: 'logged_in', message: 'Logged in', totpPending: 'true' });
    const cookie = cookieFrom(res, SESSION_COOKIE);
    const maxAge = Number(cookie?.attributes.find((a) => a.startsWith('Max-Age='))?.slice(8));
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(600);
  });

  it('accepts username as another name for the email field', async () => {
    const res = await postJson(gw, '/api/login', { username: 'alice', password: 'alice-pw' });
    expect(await expectEnvelope(res, 200)).toMatchObject({ message: 'Logged in', totpPending: 'false' });
  });

  it('finds a USERS account by <username>@<cookie domain>, case-insensitively', async () => {
    const res = await postJson(gw, '/api/login', { email: 'ALICE@Example.TEST', password: 'alice-pw' });
    expect(res.status).toBe(200);
    const user = await (await fetch(`${gw.url}/api/user`, { headers: { cookie: `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}` } })).json();
    expect(user).toMatchObject({ username: 'alice', email: 'alice@example.test' });
  });

  it('keeps a username that is an e-mail address as the e-mail and finds it case-insensitively', async () => {
    const cookie = await loginCookie(gw, 'bob@corp.TEST', 'bob-pw');
    const user = await (await fetch(`${gw.url}/api/user`, { headers: { cookie } })).json();
    expect(user).toMatchObject({ isLoggedIn: true, username: 'Bob@Corp.test', email: 'bob@corp.test' });
  });

  it('gives an unknown account and a wrong password the same 401 body', async () => {
    const unknown = await postJson(gw, '/api/login', { email: 'mallory', password: 'alice-pw' });
    const wrong = await postJson(gw, '/api/login', { email: 'alice', password: 'not-it' });
    const unknownBody = await expectEnvelope(unknown, 401);
    expect(await expectEnvelope(wrong, 401)).toEqual(unknownBody);
    expect(unknownBody).toEqual({ status: 401, code: 'invalid_credentials', message: 'Unauthorized' });
    expect(cookieFrom(unknown, SESSION_COOKIE)).toBeNull();
    expect(cookieFrom(wrong, SESSION_COOKIE)).toBeNull();
  });

  it('answers missing fields with 400 naming them', async () => {
    const body = await expectEnvelope(await postJson(gw, '/api/login', {}), 400);
    expect(body.fields).toEqual(['email', 'password']);
    expect(body.message).toMatch(/email/);
    expect(body.message).toMatch(/password/);
  });

  it('answers wrong-typed fields with 400 naming only those', async () => {
    const body = await expectEnvelope(await postJson(gw, '/api/login', { email: 'alice', password: 12345 }), 400);
    expect(body.fields).toEqual(['password']);
    expect(body.message).toMatch(/password/);
    const both = await expectEnvelope(await postJson(gw, '/api/login', { email: ['alice'], password: { p: 1 } }), 400);
    expect(both.fields).toEqual(['email', 'password']);
  });

  it('answers a JSON body that is not an object with 400 naming the fields', async () => {
    const body = await expectEnvelope(await postJson(gw, '/api/login', '["alice","alice-pw"]'), 400);
    expect(body.fields).toEqual(['email', 'password']);
  });

  it('answers malformed JSON with 400', async () => {
    const body = await expectEnvelope(await postJson(gw, '/api/login', '{"email": "alice", '), 400);
    expect(body.message).toBe('Malformed JSON body');
  });

  it('answers a body over 64 KiB with 413', async () => {
    const big = JSON.stringify({ email: 'alice', password: 'x'.repeat(70 * 1024) });
    await expectEnvelope(await postJson(gw, '/api/login', big), 413);
  });

  it('answers a chunked body that grows past 64 KiB with 413 as well', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(8 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"email":"alice","password":"'));
        if (sent < 10) controller.enqueue(chunk);
        else {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
        }
        sent += 1;
      },
    });
    const res = await fetch(`${gw.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    await expectEnvelope(res, 413);
  });

  it('reads a body just under 64 KiB and answers its overlong password with 400 naming the field', async () => {
    const body = JSON.stringify({ email: 'alice', password: 'x'.repeat(60 * 1024) });
    expect((await expectEnvelope(await postJson(gw, '/api/login', body), 400)).fields).toEqual(['password']);
  });

  it('answers a body that is not JSON with 415', async () => {
    const text = await expectEnvelope(
      await postJson(gw, '/api/login', 'email=alice&password=alice-pw', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
    );
    expect(text.message).toBe('Request body must be application/json');
    await expectEnvelope(await postJson(gw, '/api/login', 'alice alice-pw', { 'content-type': 'text/plain' }), 415);
  });

  it('reads a structured-syntax JSON type (application/*+json) like application/json', async () => {
    const res = await postJson(
      gw,
      '/api/login',
      { email: 'alice', password: 'alice-pw' },
      { 'content-type': 'application/vnd.portcullis+json; charset=utf-8' },
    );
    expect(await expectEnvelope(res, 200)).toMatchObject({ message: 'Logged in' });
  });

  it('answers a login without a body at all with 415', async () => {
    const res = await fetch(`${gw.url}/api/login`, { method: 'POST' });
    await expectEnvelope(res, 415);
  });

  it('answers GET on the login path with a 405 envelope allowing POST', async () => {
    const res = await fetch(`${gw.url}/api/login`);
    expect(await expectEnvelope(res, 405)).toEqual({ status: 405, code: 'method_not_allowed', message: 'Method not allowed' });
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('session cookie attributes', () => {
  const users = `alice:${hashOf('pw')}`;

  async function cookieAttributes(env: Record<string, string>): Promise<string[]> {
    const gw = await startGateway({ USERS: users, ...env });
    try {
      const res = await postJson(gw, '/api/login', { email: 'alice', password: 'pw' });
      expect(res.status).toBe(200);
      const cookie = cookieFrom(res, SESSION_COOKIE);
      if (cookie === null) throw new Error('no cookie');
      return cookie.attributes;
    } finally {
      await gw.close();
    }
  }

  it('is HttpOnly, SameSite=Lax, Path=/, Secure and scoped to the parent domain of an https APP_URL', async () => {
    const attrs = await cookieAttributes({ APP_URL: 'https://auth.example.test' });
    expect(attrs).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/', 'Domain=example.test', 'Secure']));
  });

  it('lives for SESSION_EXPIRY seconds', async () => {
    const attrs = await cookieAttributes({ SESSION_EXPIRY: '7200' });
    expect(attrs).toContain('Max-Age=7200');
  });

  it('is host-only and not Secure for an http://localhost APP_URL', async () => {
    const attrs = await cookieAttributes({ APP_URL: 'http://localhost:3000' });
    expect(attrs.some((a) => a.startsWith('Domain='))).toBe(false);
    expect(attrs).not.toContain('Secure');
    expect(attrs).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/']));
  });

  it('is host-only for an IPv4 APP_URL', async () => {
    const attrs = await cookieAttributes({ APP_URL: 'http://192.0.2.10:8080' });
    expect(attrs.some((a) => a.startsWith('Domain='))).toBe(false);
  });

  it('is host-only for an IPv6 APP_URL', async () => {
    const attrs = await cookieAttributes({ APP_URL: 'https://[2001:db8::1]' });
    expect(attrs.some((a) => a.startsWith('Domain='))).toBe(false);
    expect(attrs).toContain('Secure');
  });

  it('drops Secure when COOKIE_SECURE=false overrides an https APP_URL', async () => {
    const attrs = await cookieAttributes({ APP_URL: 'https://auth.example.test', COOKIE_SECURE: 'false' });
    expect(attrs).not.toContain('Secure');
    expect(attrs).toContain('Domain=example.test');
  });

  it('adds Secure when COOKIE_SECURE=true overrides an http APP_URL', async () => {
    const attrs = await cookieAttributes({ APP_URL: 'http://auth.example.test', COOKIE_SECURE: 'true' });
    expect(attrs).toContain('Secure');
  });
});

describe('login lock', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')},dave:${hashOf('dave-pw')}`, LOGIN_MAX_RETRIES: '3', LOGIN_TIMEOUT: '120' });
  });
  afterAll(() => gw.close());

  it('answers 429 with Retry-After after LOGIN_MAX_RETRIES failures, even for the right password', async () => {
    for (let i = 0; i < 3; i += 1) expect((await postJson(gw, '/api/login', { email: 'alice', password: `wrong-${i}` })).status).toBe(401);
    const res = await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw' });
    const body = await expectEnvelope(res, 429);
    const seconds = Number(LOCK_MESSAGE.exec(String(body.message))?.[1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(120);
    expect(res.headers.get('retry-after')).toBe(String(seconds));
    expect(cookieFrom(res, SESSION_COOKIE)).toBeNull();
  });

  it('gives the lock a stable code and the wait as a number, so no client reads it out of the message', async () => {
    const res = await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw' });
    const body = await expectEnvelope(res, 429);
    expect(body.code).toBe('account_locked');
    expect(typeof body.retryAfter).toBe('number');
    expect(String(body.retryAfter)).toBe(res.headers.get('retry-after'));
    expect(body.message).toBe(`Too many failed login attempts. Try again in ${String(body.retryAfter)} seconds`);
  });

  it('locks the account under every name it is known by', async () => {
    const res = await postJson(gw, '/api/login', { email: 'ALICE@example.test', password: 'alice-pw' });
    expect(res.status).toBe(429);
  });

  it('locks an unknown name the same way, so the lock does not reveal which accounts exist', async () => {
    for (let i = 0; i < 3; i += 1) expect((await postJson(gw, '/api/login', { email: 'mallory', password: `wrong-${i}` })).status).toBe(401);
    const res = await postJson(gw, '/api/login', { email: 'mallory', password: 'anything' });
    expect((await expectEnvelope(res, 429)).message).toMatch(LOCK_MESSAGE);
  });

  it('does not lock another account', async () => {
    expect((await postJson(gw, '/api/login', { email: 'dave', password: 'dave-pw' })).status).toBe(200);
  });
});

describe('client address for the per-address lock', () => {
  // One failure locks a name; ten failures (10 x LOGIN_MAX_RETRIES) lock the client address.
  const env = { USERS: `alice:${hashOf('alice-pw')}`, LOGIN_MAX_RETRIES: '1', LOGIN_TIMEOUT: '120' };

  async function failTenTimes(gw: RunningGateway, headers: (i: number) => Record<string, string>): Promise<void> {
    for (let i = 0; i < 10; i += 1) {
      expect((await postJson(gw, '/api/login', { email: `nobody-${i}`, password: 'x' }, headers(i))).status).toBe(401);
    }
  }

  it('locks an address after ten times LOGIN_MAX_RETRIES failures, even for a real account with the right password', async () => {
    const gw = await startGateway(env);
    try {
      await failTenTimes(gw, () => ({}));
      const res = await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw' });
      expect(LOCK_MESSAGE.test(String((await expectEnvelope(res, 429)).message))).toBe(true);
    } finally {
      await gw.close();
    }
  });

  it('ignores X-Forwarded-For from a peer outside TRUSTED_PROXIES, so spoofed addresses do not escape the lock', async () => {
    const gw = await startGateway({ ...env, TRUSTED_PROXIES: '10.0.0.0/8' });
    try {
      await failTenTimes(gw, (i) => ({ 'x-forwarded-for': `203.0.113.${i + 1}` }));
      const res = await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw' }, { 'x-forwarded-for': '198.51.100.77' });
      expect(res.status).toBe(429);
    } finally {
      await gw.close();
    }
  });

  it('believes X-Forwarded-For from a trusted peer: a locked client address does not lock another client', async () => {
    const gw = await startGateway({ ...env, TRUSTED_PROXIES: '127.0.0.0/8' });
    try {
      await failTenTimes(gw, () => ({ 'x-forwarded-for': '203.0.113.5' }));
      expect((await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw' }, { 'x-forwarded-for': '203.0.113.5' })).status).toBe(429);
      expect((await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw' }, { 'x-forwarded-for': '203.0.113.6' })).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it('takes the right-most address that is not a trusted proxy, so a client cannot choose its address by prepending to the chain', async () => {
    // Loopback (the test's own peer) and an inner proxy at 10.0.0.2 are trusted.
    const gw = await startGateway({ ...env, TRUSTED_PROXIES: '127.0.0.0/8, ::1, 10.0.0.2' });
    try {
      await failTenTimes(gw, (i) => ({ 'x-forwarded-for': `198.51.100.${i + 1}, 203.0.113.5, 10.0.0.2` }));
      const spoofed = await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw' }, { 'x-forwarded-for': '192.0.2.99, 203.0.113.5, 10.0.0.2' });
      expect(spoofed.status).toBe(429);
      const other = await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw' }, { 'x-forwarded-for': '203.0.113.5, 203.0.113.6' });
      expect(other.status).toBe(200);
    } finally {
      await gw.close();
    }
  });
});

describe('password work behind the login endpoint', () => {
  it('spends one bcrypt comparison on an unknown account, as on a wrong password (a decoy hash)', async () => {
    const real = new BcryptPasswordHasher(4);
    const counted = { comparisons: 0 };
    const hasher: PasswordHasher = {
      verify: (password, hash) => ((counted.comparisons += 1), real.verify(password, hash)),
      verifyDecoy: (password) => ((counted.comparisons += 1), real.verifyDecoy(password)),
      hash: (password) => real.hash(password),
    };
    const gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')}`, LOGIN_MAX_RETRIES: '0' }, { [TOKENS.PasswordHasher]: hasher });
    try {
      const before = counted.comparisons;
      expect((await postJson(gw, '/api/login', { email: 'nobody', password: 'x' })).status).toBe(401);
      const unknown = counted.comparisons - before;
      expect((await postJson(gw, '/api/login', { email: 'alice', password: 'x' })).status).toBe(401);
      const wrong = counted.comparisons - before - unknown;
      expect([unknown, wrong]).toEqual([1, 1]);
    } finally {
      await gw.close();
    }
  });
});

describe('the bcrypt waiting line shared by everyone', () => {
  it('keeps serving other address blocks while many addresses of one IPv6 /64 fill the waiting line', async () => {
    // One check at a time and four waiting: a handful of requests fill the line.
    const hasher = new BcryptPasswordHasher(10, 10, 1, 4);
    const gw = await startGateway(
      { USERS: `alice:${hashOf('alice-pw')}`, LOGIN_MAX_RETRIES: '0', TRUSTED_PROXIES: '127.0.0.1/32' },
      { [TOKENS.PasswordHasher]: hasher },
    );
    try {
      const flood = Array.from({ length: 30 }, (_, i) =>
        postJson(gw, '/api/login', { email: `nobody-${i}`, password: 'x' }, { 'x-forwarded-for': `2001:db8:1:2::${(i + 1).toString(16)}` }).then(
          (r) => r.status,
        ),
      );
      // Once the block is refused a place, the line is full of its checks.
      await new Promise<void>((resolve) => flood.forEach((p) => p.then((status) => status === 503 && resolve())));
      const other = await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw' }, { 'x-forwarded-for': '2001:db8:9::1' });
      expect(other.status).toBe(200);
      const statuses = await Promise.all(flood);
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
      expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);
    } finally {
      await gw.close();
    }
  });
});

describe('failures behind the login endpoint', () => {
  it('answers an unreachable user store with a 503 envelope', async () => {
    const down = { findAccount: () => Promise.reject(new UserStoreUnavailableError('test')), verifyPassword: () => Promise.resolve(false) };
    const gw = await startGateway({ USERS: `alice:${hashOf('pw')}` }, { [TOKENS.UserStore]: down });
    try {
      expect(await expectEnvelope(await postJson(gw, '/api/login', { email: 'alice', password: 'pw' }), 503)).toEqual({
        status: 503,
        code: 'store_unavailable',
        message: 'Service unavailable, try again later',
      });
    } finally {
      await gw.close();
    }
  });

  it('answers an unexpected failure with a fixed 500 envelope that never repeats the error text', async () => {
    const broken = { findAccount: () => Promise.reject(new Error('db password is hunter2')), verifyPassword: () => Promise.resolve(false) };
    const gw = await startGateway({ USERS: `alice:${hashOf('pw')}` }, { [TOKENS.UserStore]: broken });
    try {
      const res = await postJson(gw, '/api/login', { email: 'alice', password: 'pw' });
      const text = await res.clone().text();
      expect(await expectEnvelope(res, 500)).toEqual({ status: 500, code: 'internal_error', message: 'Internal server error' });
      expect(text).not.toContain('hunter2');
      const auth = await fetch(`${gw.url}/api/auth/traefik`, { headers: { authorization: `Basic ${Buffer.from('alice:pw').toString('base64')}` } });
      expect(await expectEnvelope(auth, 500)).toEqual({ status: 500, code: 'internal_error', message: 'Internal server error' });
    } finally {
      await gw.close();
    }
  });
});

describe('login under other settings', () => {
  it('never locks when LOGIN_MAX_RETRIES is 0', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')}`, LOGIN_MAX_RETRIES: '0' });
    try {
      for (let i = 0; i < 8; i += 1) expect((await postJson(gw, '/api/login', { email: 'alice', password: `wrong-${i}` })).status).toBe(401);
      expect((await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw' })).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it('derives a USERS account e-mail from a host-only APP_URL as <username>@<host>', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')}`, APP_URL: 'http://localhost:3000' });
    try {
      const cookie = await loginCookie(gw, 'Alice@LOCALHOST', 'alice-pw');
      const user = (await (await fetch(`${gw.url}/api/user`, { headers: { cookie } })).json()) as Record<string, unknown>;
      expect(user).toMatchObject({ username: 'alice', email: 'alice@localhost' });
    } finally {
      await gw.close();
    }
  });
});
