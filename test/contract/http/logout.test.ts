import { connect } from 'node:net';
import { StateStoreUnavailableError } from '../../../src/application/ports/state-store-unavailable';
import type { RevokedSessions } from '../../../src/application/ports/revoked-sessions';
import { TOKENS } from '../../../src/composition/tokens';
import { capturedLogger } from '../../support/loggers';
import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { cookieFrom, startGateway, type RunningGateway } from '../../support/server';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, SESSION_COOKIE } from '../../support/http';

const APP = 'https://app.example.test/';

describe('POST /api/logout', () => {
  let gw: RunningGateway;
  const capture = capturedLogger('info');
  beforeAll(async () => {
    gw = await startGateway(
      { USERS: `alice:${hashOf('alice-pw')},carol:${hashOf('carol-pw')}:${TOTP_SECRET}`, LOG_LEVEL: 'info' },
      { [TOKENS.Logger]: capture.logger },
    );
  });
  afterAll(() => gw.close());

  // As the UI sends it: a JSON body, which a cross-site form cannot send.
  const logout = (cookie?: string): Promise<Response> =>
    fetch(`${gw.url}/api/logout`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(cookie === undefined ? {} : { cookie }) }, body: '{}' });
  const post = (cookie: string, headers: Record<string, string>, body?: string): Promise<Response> =>
    fetch(`${gw.url}/api/logout`, { method: 'POST', headers: { cookie, ...headers }, body });
  /** A POST written byte for byte, so that nothing (fetch, node) adds a Content-Type, a Content-Length or a body. */
  const rawPost = (cookie: string, lines: string[]): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const { hostname, port } = new URL(gw.url);
      const socket = connect(Number(port), hostname, () => {
        socket.write(['POST /api/logout HTTP/1.1', 'Host: auth.example.test', `Cookie: ${cookie}`, ...lines, 'Connection: close', '', ''].join('\r\n'));
      });
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', reject);
      socket.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [head, ...rest] = text.split('\r\n\r\n');
        resolve({ status: Number(head.split(' ')[1]), body: rest.join('\r\n\r\n') });
      });
    });
  const stillLoggedIn = async (cookie: string): Promise<boolean> => (await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status === 200;
  const CROSS_SITE_MESSAGE = 'Refused: cross-site request (Sec-Fetch-Site or Origin names another site). Send it from this site';

  describe('cross-site requests (CSRF)', () => {
    it('refuses a cross-site form post with 403, keeps the session and the cookie, and audits it', async () => {
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      const res = await post(
        cookie,
        {
          'Content-Type': 'application/x-www-form-urlencoded',
          Origin: 'https://evil.example.net',
          'Sec-Fetch-Site': 'cross-site',
          'Sec-Fetch-Mode': 'navigate',
        },
        'x=1',
      );
      expect(await expectEnvelope(res, 403)).toEqual({ status: 403, code: 'cross_site_request', message: CROSS_SITE_MESSAGE });
      expect(cookieFrom(res, SESSION_COOKIE)).toBeNull();
      expect(await stillLoggedIn(cookie)).toBe(true);
      await capture.logger.flush();
      expect(capture.lines()).toContainEqual(
        expect.objectContaining({ msg: 'audit', event: 'logout_refused', reason: 'cross_site', requestId: res.headers.get('x-request-id') }),
      );
    });

    it('accepts a bodiless post from a client that sends neither Origin nor Sec-Fetch-Site (curl, a script)', async () => {
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      // Exactly what `curl -X POST -b cookie URL/api/logout` sends: no Content-Type, no Content-Length, no body.
      const res = await rawPost(cookie, ['User-Agent: curl/8.5.0', 'Accept: */*']);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ status: 200, code: 'logged_out', message: 'Logged out' });
      expect(await stillLoggedIn(cookie)).toBe(false);
    });

    it('accepts a post with no sign of another site, whatever its body (fetch with no body, text/plain, an empty form)', async () => {
      for (const [headers, body] of <[Record<string, string>, string | undefined][]>[
        [{}, undefined],
        [{ 'Content-Type': 'text/plain' }, '{}'],
        [{ 'Content-Type': 'application/x-www-form-urlencoded' }, ''],
      ]) {
        const cookie = await loginCookie(gw, 'alice', 'alice-pw');
        expect((await post(cookie, headers, body)).status).toBe(200);
        expect(await stillLoggedIn(cookie)).toBe(false);
      }
    });

    it('refuses what a browser calls cross-site or same-site (a sibling app), even with a JSON type', async () => {
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      expect((await post(cookie, { 'Sec-Fetch-Site': 'same-site', 'Content-Type': 'application/json' }, '{}')).status).toBe(403);
      expect((await post(cookie, { 'Sec-Fetch-Site': 'cross-site', 'Content-Type': 'application/json' }, '{}')).status).toBe(403);
      expect((await post(cookie, { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
      expect((await post(cookie, { 'Sec-Fetch-Site': 'same-site' })).status).toBe(403);
      expect(await stillLoggedIn(cookie)).toBe(true);
    });

    it('refuses any request from a foreign Origin, JSON or bodiless, even without Sec-Fetch-Site', async () => {
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      expect((await post(cookie, { 'Content-Type': 'application/json', Origin: 'https://evil.example.net' }, '{}')).status).toBe(403);
      expect((await post(cookie, { Origin: 'https://evil.example.net' })).status).toBe(403);
      expect((await post(cookie, { Origin: 'http://auth.example.test' })).status).toBe(403);
      expect(await stillLoggedIn(cookie)).toBe(true);
    });

    it('refuses a form from a foreign or opaque Origin when the browser sends no Sec-Fetch-Site', async () => {
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
      expect((await post(cookie, { ...form, Origin: 'https://app.example.test' }, 'x=1')).status).toBe(403);
      expect((await post(cookie, { ...form, Origin: 'null' }, 'x=1')).status).toBe(403);
      expect((await post(cookie, { ...form, Origin: 'https://auth.example.test.evil.example.net' }, 'x=1')).status).toBe(403);
      expect(await stillLoggedIn(cookie)).toBe(true);
    });

    it('accepts a same-origin browser request, form or not (Sec-Fetch-Site same-origin or none, or Origin of APP_URL)', async () => {
      for (const headers of <Record<string, string>[]>[
        { 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/x-www-form-urlencoded' },
        { 'Sec-Fetch-Site': 'none' },
        { Origin: 'https://auth.example.test', 'Content-Type': 'application/x-www-form-urlencoded' },
        { Origin: 'https://auth.example.test' },
        { 'Sec-Fetch-Site': 'same-origin' },
      ]) {
        const cookie = await loginCookie(gw, 'alice', 'alice-pw');
        expect((await post(cookie, headers, 'x=1')).status).toBe(200);
        expect(await stillLoggedIn(cookie)).toBe(false);
      }
    });

    it('accepts the request the UI sends (JSON, same origin)', async () => {
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      expect(
        (await post(cookie, { 'Content-Type': 'application/json', Origin: 'https://auth.example.test', 'Sec-Fetch-Site': 'same-origin' }, '{}')).status,
      ).toBe(200);
      expect(await stillLoggedIn(cookie)).toBe(false);
    });
  });

  it('answers 200 Logged out and tells the client to forget the cookie (Max-Age=0, same scope)', async () => {
    const cookie = await loginCookie(gw, 'alice', 'alice-pw');
    const res = await logout(cookie);
    expect(await expectEnvelope(res, 200)).toEqual({ status: 200, code: 'logged_out', message: 'Logged out' });
    const cleared = cookieFrom(res, SESSION_COOKIE);
    expect(cleared?.value).toBe('');
    expect(cleared?.attributes).toEqual(expect.arrayContaining(['Max-Age=0', 'Path=/', 'Domain=example.test', 'HttpOnly', 'SameSite=Lax', 'Secure']));
  });

  it('revokes the session on the server: a copied cookie no longer passes /api/auth or /api/user', async () => {
    const cookie = await loginCookie(gw, 'alice', 'alice-pw');
    expect((await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status).toBe(200);
    expect((await logout(cookie)).status).toBe(200);
    const auth = await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) });
    expect(auth.status).toBe(401);
    expect(auth.headers.get('remote-user')).toBeNull();
    const user = await expectEnvelope(await fetch(`${gw.url}/api/user`, { headers: { cookie } }), 200);
    expect(user).toMatchObject({ isLoggedIn: false, username: '' });
  });

  it('leaves other sessions of the same account alone', async () => {
    const first = await loginCookie(gw, 'alice', 'alice-pw');
    const second = await loginCookie(gw, 'alice', 'alice-pw');
    await logout(first);
    expect((await askForwardAuth(gw, 'traefik', { cookie: second, ...forwardedFor(APP) })).status).toBe(200);
  });

  it('revokes a pending TOTP session too', async () => {
    const pending = await loginCookie(gw, 'carol', 'carol-pw');
    await logout(pending);
    const user = await (await fetch(`${gw.url}/api/user`, { headers: { cookie: pending } })).json();
    expect(user).toMatchObject({ isLoggedIn: false, totpPending: 'false' });
  });

  it('answers 200 and clears the cookie when nobody is logged in', async () => {
    const res = await logout();
    expect(await expectEnvelope(res, 200)).toEqual({ status: 200, code: 'logged_out', message: 'Logged out' });
    expect(cookieFrom(res, SESSION_COOKIE)?.attributes).toContain('Max-Age=0');
  });

  it('answers a garbage cookie with 200 as well', async () => {
    expect((await logout(`${SESSION_COOKIE}=v1.not-a-session`)).status).toBe(200);
  });

  it('answers GET with a 405 envelope', async () => {
    const res = await fetch(`${gw.url}/api/logout`);
    await expectEnvelope(res, 405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('POST /api/logout when the revocation cannot be stored', () => {
  let gw: RunningGateway;
  let failing = false;
  const stored = new Set<string>();
  const revoked: RevokedSessions = {
    revoke: async (id) => {
      if (failing) throw new StateStoreUnavailableError('fake');
      stored.add(id);
    },
    isRevoked: async (id) => stored.has(id),
  };
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')}` }, { [TOKENS.RevokedSessions]: revoked });
  });
  afterAll(() => gw.close());

  it('answers 503 and leaves the cookie in place, never a "Logged out" that a copied cookie survives', async () => {
    const cookie = await loginCookie(gw, 'alice', 'alice-pw');
    failing = true;
    const res = await fetch(`${gw.url}/api/logout`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{}' });
    expect(await expectEnvelope(res, 503)).toEqual({ status: 503, code: 'store_unavailable', message: 'Service unavailable, try again later' });
    expect(cookieFrom(res, SESSION_COOKIE)).toBeNull();
    failing = false;
    const retry = await fetch(`${gw.url}/api/logout`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{}' });
    expect(retry.status).toBe(200);
    expect((await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status).toBe(401);
  });
});
