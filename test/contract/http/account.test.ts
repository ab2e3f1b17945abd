import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, postJson, SESSION_COOKIE, totpCode } from '../../support/http';
import { cookieFrom, startGateway, type RunningGateway } from '../../support/server';

const APP = 'https://app.example.test/';
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0';

describe('the account API: /api/account and /api/account/sessions/revoke', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')},bob:${hashOf('bob-pw')},carol:${hashOf('carol-pw')}:${TOTP_SECRET}` });
  });
  afterAll(() => gw.close());

  const account = (cookie?: string): Promise<Response> => fetch(`${gw.url}/api/account`, { headers: cookie === undefined ? {} : { cookie } });
  const revoke = (cookie: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    postJson(gw, '/api/account/sessions/revoke', body, { cookie, ...headers });
  const live = async (cookie: string): Promise<boolean> => (await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status === 200;
  const sessionsOf = async (cookie: string): Promise<Array<Record<string, unknown>>> => {
    const body = await expectEnvelope(await account(cookie), 200);
    return body.sessions as Array<Record<string, unknown>>;
  };
  const currentId = async (cookie: string): Promise<string> => String((await expectEnvelope(await account(cookie), 200)).currentSession);

  describe('attacks', () => {
    it('refuses to revoke another account’s session id with the same 404 as an unknown id, and that session keeps working', async () => {
      const bobs = await loginCookie(gw, 'bob', 'bob-pw');
      const bobsId = await currentId(bobs);
      const alices = await loginCookie(gw, 'alice', 'alice-pw');
      const res = await revoke(alices, { id: bobsId });
      expect(await expectEnvelope(res, 404)).toEqual({ status: 404, code: 'session_not_found', message: 'No such session of your account' });
      const unknown = await revoke(alices, { id: 'no-such-session-id' });
      expect(await expectEnvelope(unknown, 404)).toEqual({ status: 404, code: 'session_not_found', message: 'No such session of your account' });
      expect(await live(bobs)).toBe(true);
      expect((await sessionsOf(bobs)).map((s) => s.id)).toContain(bobsId);
    });

    it('never lists another account’s sessions', async () => {
      const bobs = await loginCookie(gw, 'bob', 'bob-pw');
      const bobsId = await currentId(bobs);
      const alices = await loginCookie(gw, 'alice', 'alice-pw');
      expect((await sessionsOf(alices)).map((s) => s.id)).not.toContain(bobsId);
    });

    it('refuses a session that still owes its TOTP code: no list, no revocation', async () => {
      const pending = await loginCookie(gw, 'carol', 'carol-pw');
      expect(await expectEnvelope(await account(pending), 401)).toMatchObject({ code: 'session_required' });
      expect(await expectEnvelope(await revoke(pending, { scope: 'all' }), 401)).toMatchObject({ code: 'session_required' });
    });

    it('refuses a cross-site post (a form from another site, a same-site sibling app, a foreign Origin) and ends nothing', async () => {
      const other = await loginCookie(gw, 'alice', 'alice-pw');
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      const form = await fetch(`${gw.url}/api/account/sessions/revoke`, {
        method: 'POST',
        headers: { cookie, 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://evil.example.net', 'Sec-Fetch-Site': 'cross-site' },
        body: 'scope=all',
      });
      expect(await expectEnvelope(form, 403)).toMatchObject({ code: 'cross_site_request' });
      const sibling = await revoke(cookie, { scope: 'all' }, { 'Sec-Fetch-Site': 'same-site' });
      expect(await expectEnvelope(sibling, 403)).toMatchObject({ code: 'cross_site_request' });
      const foreign = await revoke(cookie, { scope: 'all' }, { Origin: 'https://evil.example.net' });
      expect(await expectEnvelope(foreign, 403)).toMatchObject({ code: 'cross_site_request' });
      // No sign of another site, but no JSON either: the wrong type, not a cross-site request.
      const bare = await fetch(`${gw.url}/api/account/sessions/revoke`, { method: 'POST', headers: { cookie } });
      expect(bare.status).toBe(415);
      expect(await live(cookie)).toBe(true);
      expect(await live(other)).toBe(true);
    });

    it('refuses anonymous callers and HTTP Basic (no session to manage)', async () => {
      expect(await expectEnvelope(await account(), 401)).toMatchObject({ code: 'session_required' });
      const basic = await fetch(`${gw.url}/api/account`, { headers: { authorization: `Basic ${Buffer.from('alice:alice-pw').toString('base64')}` } });
      expect(basic.status).toBe(401);
    });

    it('answers a malformed body with 400 naming the fields, never a 500', async () => {
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      for (const body of [{}, { scope: 'nobody' }, { id: 7 }, { id: 'x'.repeat(500) }, { id: 'a', scope: 'all' }, []]) {
        expect(await expectEnvelope(await revoke(cookie, body), 400)).toMatchObject({ code: 'invalid_fields', fields: ['id', 'scope'] });
      }
      expect((await revoke(cookie, '{"id":')).status).toBe(400);
      expect(await live(cookie)).toBe(true);
    });
  });

  it('lists every session of the account with its browser, platform, address, method and times, marking this one', async () => {
    const first = await loginCookie(gw, 'alice', 'alice-pw', { 'user-agent': CHROME });
    const second = await loginCookie(gw, 'alice', 'alice-pw', { 'user-agent': FIREFOX });
    const sessions = await sessionsOf(second);
    const [mine, chrome] = [sessions.find((s) => s.current === true), sessions.find((s) => s.id === undefined || s.browser === 'Chrome 130')];
    expect(mine).toMatchObject({ browser: 'Firefox 132', platform: 'Windows 10', method: 'password', address: '127.0.0.1' });
    expect(chrome).toMatchObject({ current: false, platform: 'Linux', method: 'password' });
    expect(Date.parse(String(mine?.startedAt))).toBeGreaterThan(Date.now() - 60_000);
    expect(typeof mine?.lastSeenAt).toBe('string');
    expect(typeof mine?.expiresAt).toBe('string');
    expect(sessions.filter((s) => s.current === true)).toHaveLength(1);
    expect(await live(first)).toBe(true);
  });

  it('registers TOTP logins with their method, and tells who you are (groups and e-mail too)', async () => {
    const pending = await loginCookie(gw, 'carol', 'carol-pw');
    const res = await postJson(gw, '/api/totp', { code: await totpCode() }, { cookie: pending });
    expect(res.status).toBe(200);
    const cookie = `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`;
    const body = await expectEnvelope(await account(cookie), 200);
    expect(body.user).toMatchObject({ username: 'carol', totp: true, provider: 'username', groups: [] });
    expect((body.sessions as Array<Record<string, unknown>>).find((s) => s.current === true)).toMatchObject({ method: 'totp' });
  });

  it('"sign out this one" ends exactly that session, also for forward auth, and leaves this one', async () => {
    const victim = await loginCookie(gw, 'alice', 'alice-pw');
    const victimId = await currentId(victim);
    const me = await loginCookie(gw, 'alice', 'alice-pw');
    const res = await revoke(me, { id: victimId });
    expect(await expectEnvelope(res, 200)).toEqual({ status: 200, code: 'sessions_revoked', message: 'Signed out 1 session', revoked: 1, endedCurrent: false });
    expect(cookieFrom(res, SESSION_COOKIE)).toBeNull();
    expect(await live(victim)).toBe(false);
    expect(await live(me)).toBe(true);
    expect((await sessionsOf(me)).map((s) => s.id)).not.toContain(victimId);
  });

  it('"sign out everywhere else" ends every other session of the account and keeps this one', async () => {
    const a = await loginCookie(gw, 'bob', 'bob-pw');
    const b = await loginCookie(gw, 'bob', 'bob-pw');
    const me = await loginCookie(gw, 'bob', 'bob-pw');
    const alices = await loginCookie(gw, 'alice', 'alice-pw');
    const res = await revoke(me, { scope: 'others' });
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'sessions_revoked', endedCurrent: false });
    expect([await live(a), await live(b), await live(me), await live(alices)]).toEqual([false, false, true, true]);
    expect((await sessionsOf(me)).map((s) => s.current)).toEqual([true]);
  });

  it('"sign out everywhere" ends every session including this one and clears its cookie', async () => {
    const other = await loginCookie(gw, 'bob', 'bob-pw');
    const me = await loginCookie(gw, 'bob', 'bob-pw');
    const res = await revoke(me, { scope: 'all' });
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'sessions_revoked', endedCurrent: true });
    expect(cookieFrom(res, SESSION_COOKIE)?.value).toBe('');
    expect([await live(other), await live(me)]).toEqual([false, false]);
    expect(await expectEnvelope(await account(me), 401)).toMatchObject({ code: 'session_required' });
  });
});

describe('the account API across a restart on the embedded store', () => {
  it('still lists the sessions made before the restart, and revoking one after it ends it', async () => {
    const data = tempDataDir();
    const env = { USERS: `alice:${hashOf('alice-pw')}`, DATA_DIR: data.dir };
    try {
      let gw = await startGateway(env);
      const before = await loginCookie(gw, 'alice', 'alice-pw', { 'user-agent': CHROME });
      const other = await loginCookie(gw, 'alice', 'alice-pw', { 'user-agent': FIREFOX });
      await gw.close();
      gw = await startGateway(env);
      const listed = (await expectEnvelope(await fetch(`${gw.url}/api/account`, { headers: { cookie: before } }), 200)).sessions as Array<
        Record<string, unknown>
      >;
      expect(listed.map((s) => s.browser).sort()).toEqual(['Chrome 130', 'Firefox 132']);
      const otherId = listed.find((s) => s.current !== true)?.id;
      expect((await postJson(gw, '/api/account/sessions/revoke', { id: otherId }, { cookie: before })).status).toBe(200);
      await gw.close();
      gw = await startGateway(env);
      const live = async (cookie: string): Promise<boolean> => (await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status === 200;
      expect([await live(before), await live(other)]).toEqual([true, false]);
      await gw.close();
    } finally {
      data.remove();
    }
  }, 60_000);
});
