import { readFileSync } from 'node:fs';
import { hashOf } from '../../support/credentials';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, postJson, SESSION_COOKIE } from '../../support/http';
import { cookieFrom, startGatewayWithUsersFile, type RunningGateway } from '../../support/server';

const APP = 'https://app.example.test/';
const NEW = 'a much longer passphrase';

describe('POST /api/account/password (issue 36): changing one’s own password', () => {
  let gw: RunningGateway & { readonly usersFile: string };
  beforeAll(async () => {
    const people = ['alice', 'bob', 'carol', 'dave', 'erin']
      .map((u) => `  - username: ${u}\n    password: "${hashOf(`${u}-old-password`)}"\n    groups: [staff]   # ${u}'s comment stays`)
      .join('\n');
    gw = await startGatewayWithUsersFile(`# people\nusers:\n${people}\n`, {
      USERS: `ursula:${hashOf('ursula-old-password')}`,
      LOGIN_MAX_RETRIES: '3',
      BASIC_CACHE_TTL_SECONDS: '60',
    });
  });
  afterAll(() => gw.close());

  const live = async (cookie: string): Promise<boolean> => (await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status === 200;
  const change = (cookie: string, current: unknown, password: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    postJson(gw, '/api/account/password', { current, password }, { cookie, ...headers });
  const login = (email: string, password: string): Promise<Response> => postJson(gw, '/api/login', { email, password });

  it('changes the password in the users file: the old one is refused at login, the new one accepted', async () => {
    const cookie = await loginCookie(gw, 'alice', 'alice-old-password');
    const res = await change(cookie, 'alice-old-password', NEW);
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'password_changed', ended: 1 });
    expect((await login('alice', 'alice-old-password')).status).toBe(401);
    expect((await login('alice', NEW)).status).toBe(200);
    // Written in place as a bcrypt hash; the rest of the file as it was.
    const file = readFileSync(gw.usersFile, 'utf8');
    expect(file).toMatch(/^# people\nusers:\n {2}- username: alice\n {4}password: "?\$2[aby]\$10\$/);
    expect(file).toContain("groups: [staff]   # alice's comment stays");
    expect(file).not.toContain(NEW);
  });

  it('ends the other sessions of the person and keeps the caller signed in with a re-issued cookie', async () => {
    const mine = await loginCookie(gw, 'bob', 'bob-old-password');
    const other = await loginCookie(gw, 'bob', 'bob-old-password');
    const res = await change(mine, 'bob-old-password', NEW);
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'password_changed', ended: 2 });
    const reissued = `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`;
    expect(await live(reissued)).toBe(true);
    expect(await live(other)).toBe(false);
    expect(await live(mine)).toBe(false);
    const account = await expectEnvelope(await fetch(`${gw.url}/api/account`, { headers: { cookie: reissued } }), 200);
    expect((account.user as { username: string }).username).toBe('bob');
  });

  it('counts a wrong current password toward the login lock: after the limit even the right one is refused', async () => {
    const cookie = await loginCookie(gw, 'carol', 'carol-old-password');
    for (let i = 0; i < 3; i += 1)
      expect(await expectEnvelope(await change(cookie, 'wrong-password', NEW), 401)).toMatchObject({ code: 'invalid_credentials' });
    const locked = await change(cookie, 'carol-old-password', NEW);
    expect(await expectEnvelope(locked, 429)).toMatchObject({ code: 'account_locked' });
    expect((await login('carol', 'carol-old-password')).status).toBe(429);
    expect(await live(cookie)).toBe(true);
  });

  it('refuses a weak new password with its reason, before the current one is checked', async () => {
    const cookie = await loginCookie(gw, 'dave', 'dave-old-password');
    const short = await change(cookie, 'wrong', 'short');
    expect(await expectEnvelope(short, 400)).toMatchObject({ code: 'weak_password', reason: 'too_short' });
    expect(await expectEnvelope(await change(cookie, 'wrong', 'qwerty123456'), 400)).toMatchObject({ reason: 'common' });
    expect(await expectEnvelope(await change(cookie, 'dave-old-password', 'dave-old-password'), 400)).toMatchObject({ reason: 'same_as_current' });
    // None of those counted: three wrong guesses are still allowed before the lock.
    for (let i = 0; i < 2; i += 1) expect((await change(cookie, 'wrong', NEW)).status).toBe(401);
    expect((await login('dave', 'dave-old-password')).status).toBe(200);
  });

  it('answers read_only_source for a USERS account, and the page is told not to show the form', async () => {
    const cookie = await loginCookie(gw, 'ursula', 'ursula-old-password');
    expect(await expectEnvelope(await change(cookie, 'ursula-old-password', NEW), 409)).toMatchObject({ code: 'read_only_source' });
    expect(await expectEnvelope(await fetch(`${gw.url}/api/account/password`, { headers: { cookie } }), 200)).toMatchObject({
      code: 'password_change',
      changeable: false,
    });
    const fileAccount = await loginCookie(gw, 'erin', 'erin-old-password');
    expect(await expectEnvelope(await fetch(`${gw.url}/api/account/password`, { headers: { cookie: fileAccount } }), 200)).toMatchObject({
      changeable: true,
    });
  });

  it('refuses cross-site requests, non-JSON bodies, bad fields, no session and HTTP Basic', async () => {
    const cookie = await loginCookie(gw, 'erin', 'erin-old-password');
    const crossSite = await change(cookie, 'erin-old-password', NEW, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(await expectEnvelope(crossSite, 403)).toMatchObject({ code: 'cross_site_request' });
    const form = await fetch(`${gw.url}/api/account/password`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `current=erin-old-password&password=${encodeURIComponent(NEW)}`,
    });
    expect(await expectEnvelope(form, 415)).toMatchObject({ code: 'unsupported_media_type' });
    expect(await expectEnvelope(await change(cookie, 42, ''), 400)).toMatchObject({ code: 'invalid_fields', fields: ['current', 'password'] });
    expect(await expectEnvelope(await change('', 'erin-old-password', NEW), 401)).toMatchObject({ code: 'session_required' });
    const basic = `Basic ${Buffer.from('erin:erin-old-password').toString('base64')}`;
    expect(await expectEnvelope(await change('', 'erin-old-password', NEW, { authorization: basic }), 401)).toMatchObject({ code: 'session_required' });
    expect((await login('erin', 'erin-old-password')).status).toBe(200);
  });
});
