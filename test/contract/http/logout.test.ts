import { StateStoreUnavailableError } from '../../../src/application/ports/state-store-unavailable';
import type { RevokedSessions } from '../../../src/application/ports/revoked-sessions';
import { TOKENS } from '../../../src/composition/tokens';
import { cookieFrom, hashOf, startGateway, type RunningGateway } from '../../support/server';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, SESSION_COOKIE, TOTP_SECRET } from '../../support/http';

const APP = 'https://app.example.test/';

describe('POST /api/logout', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')},carol:${hashOf('carol-pw')}:${TOTP_SECRET}` });
  });
  afterAll(() => gw.close());

  const logout = (cookie?: string): Promise<Response> =>
    fetch(`${gw.url}/api/logout`, { method: 'POST', headers: cookie === undefined ? {} : { cookie } });

  it('answers 200 Logged out and tells the client to forget the cookie (Max-Age=0, same scope)', async () => {
    const cookie = await loginCookie(gw, 'alice', 'alice-pw');
    const res = await logout(cookie);
    expect(await expectEnvelope(res, 200)).toEqual({ status: 200, message: 'Logged out' });
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
    expect(await expectEnvelope(res, 200)).toEqual({ status: 200, message: 'Logged out' });
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
    const res = await fetch(`${gw.url}/api/logout`, { method: 'POST', headers: { cookie } });
    expect(await expectEnvelope(res, 503)).toEqual({ status: 503, message: 'Service unavailable, try again later' });
    expect(cookieFrom(res, SESSION_COOKIE)).toBeNull();
    failing = false;
    const retry = await fetch(`${gw.url}/api/logout`, { method: 'POST', headers: { cookie } });
    expect(retry.status).toBe(200);
    expect((await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status).toBe(401);
  });
});
