import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { cookieFrom, startGateway, type RunningGateway } from '../../support/server';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, postJson, SESSION_COOKIE, totpCode, wrongTotpCode } from '../../support/http';

const APP = 'https://app.example.test/';

describe('POST /api/totp', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({
      USERS: `carol:${hashOf('carol-pw')}:${TOTP_SECRET},erin:${hashOf('erin-pw')}:${TOTP_SECRET},grace:${hashOf('grace-pw')}:${TOTP_SECRET},alice:${hashOf('alice-pw')}`,
      LOGIN_MAX_RETRIES: '0',
    });
  });
  afterAll(() => gw.close());

  it('lets a pending session pass nothing but /api/totp: forward auth treats it as logged out', async () => {
    const pending = await loginCookie(gw, 'carol', 'carol-pw');
    const res = await askForwardAuth(gw, 'traefik', { cookie: pending, ...forwardedFor(APP) });
    expect(await expectEnvelope(res, 401)).toEqual({ status: 401, code: 'unauthorized', message: 'Unauthorized' });
    expect(res.headers.get('remote-user')).toBeNull();
  });

  it('reports a pending session on /api/user as not logged in with totpPending "true"', async () => {
    const pending = await loginCookie(gw, 'carol', 'carol-pw');
    const body = await expectEnvelope(await fetch(`${gw.url}/api/user`, { headers: { cookie: pending } }), 200);
    expect(body).toMatchObject({ isLoggedIn: false, totpPending: 'true' });
  });

  it('turns a pending session into a full one with a valid code: 200 Logged in and a new session cookie', async () => {
    const pending = await loginCookie(gw, 'carol', 'carol-pw');
    const res = await postJson(gw, '/api/totp', { code: await totpCode() }, { cookie: pending });
    expect(await expectEnvelope(res, 200)).toEqual({ status: 200, code: 'logged_in', message: 'Logged in' });
    const full = cookieFrom(res, SESSION_COOKIE);
    expect(full).not.toBeNull();
    expect(full?.attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/', 'Domain=example.test', 'Secure']));
    const cookie = `${SESSION_COOKIE}=${full?.value}`;
    const auth = await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) });
    expect(auth.status).toBe(200);
    expect(auth.headers.get('remote-user')).toBe('carol');
    const user = await (await fetch(`${gw.url}/api/user`, { headers: { cookie } })).json();
    expect(user).toMatchObject({ isLoggedIn: true, username: 'carol', provider: 'username', totpPending: 'false' });
  });

  it('no longer accepts the pending cookie once it has been completed', async () => {
    const pending = await loginCookie(gw, 'erin', 'erin-pw');
    expect((await postJson(gw, '/api/totp', { code: await totpCode() }, { cookie: pending })).status).toBe(200);
    const again = await postJson(gw, '/api/totp', { code: await totpCode() }, { cookie: pending });
    expect(again.status).toBe(401);
  });

  it('refuses a code the account has already used (replay), even on a fresh pending session', async () => {
    const code = await totpCode();
    const first = await loginCookie(gw, 'grace', 'grace-pw');
    expect((await postJson(gw, '/api/totp', { code }, { cookie: first })).status).toBe(200);
    const second = await loginCookie(gw, 'grace', 'grace-pw');
    const res = await postJson(gw, '/api/totp', { code }, { cookie: second });
    expect(await expectEnvelope(res, 401)).toEqual({ status: 401, code: 'totp_invalid', message: 'Invalid TOTP code' });
    expect(cookieFrom(res, SESSION_COOKIE)).toBeNull();
  });

  it('answers a wrong code with 401 and no cookie', async () => {
    const pending = await loginCookie(gw, 'carol', 'carol-pw');
    const res = await postJson(gw, '/api/totp', { code: await wrongTotpCode() }, { cookie: pending });
    expect(await expectEnvelope(res, 401)).toEqual({ status: 401, code: 'totp_invalid', message: 'Invalid TOTP code' });
    expect(cookieFrom(res, SESSION_COOKIE)).toBeNull();
  });

  it('answers a code without a pending session with 401', async () => {
    const res = await postJson(gw, '/api/totp', { code: await totpCode() });
    expect(await expectEnvelope(res, 401)).toEqual({ status: 401, code: 'not_pending', message: 'No login is waiting for a TOTP code' });
  });

  it('does not let a full session of an account without TOTP submit codes', async () => {
    const full = await loginCookie(gw, 'alice', 'alice-pw');
    expect((await postJson(gw, '/api/totp', { code: '123456' }, { cookie: full })).status).toBe(401);
  });

  it('answers a missing or wrong-typed code with 400 naming the field', async () => {
    const pending = await loginCookie(gw, 'carol', 'carol-pw');
    expect((await expectEnvelope(await postJson(gw, '/api/totp', {}, { cookie: pending }), 400)).fields).toEqual(['code']);
    expect((await expectEnvelope(await postJson(gw, '/api/totp', { code: 123456 }, { cookie: pending }), 400)).fields).toEqual(['code']);
  });

  it('answers malformed JSON with 400 and a non-JSON body with 415', async () => {
    await expectEnvelope(await postJson(gw, '/api/totp', '{"code":'), 400);
    await expectEnvelope(await postJson(gw, '/api/totp', 'code=123456', { 'content-type': 'application/x-www-form-urlencoded' }), 415);
  });
});

describe('TOTP failures and the lock', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `carol:${hashOf('carol-pw')}:${TOTP_SECRET}`, LOGIN_MAX_RETRIES: '2', LOGIN_TIMEOUT: '60' });
  });
  afterAll(() => gw.close());

  it('counts wrong codes towards the account lock: then even a valid code and the right password get 429', async () => {
    const pending = await loginCookie(gw, 'carol', 'carol-pw');
    const wrong = await wrongTotpCode();
    expect((await postJson(gw, '/api/totp', { code: wrong }, { cookie: pending })).status).toBe(401);
    expect((await postJson(gw, '/api/totp', { code: wrong }, { cookie: pending })).status).toBe(401);
    const res = await postJson(gw, '/api/totp', { code: await totpCode() }, { cookie: pending });
    const body = await expectEnvelope(res, 429);
    expect(body.message).toMatch(/^Too many failed login attempts\. Try again in \d+ seconds$/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await postJson(gw, '/api/login', { email: 'carol', password: 'carol-pw' })).status).toBe(429);
  });
});
