import { basic, hashOf, TOTP_SECRET } from '../../support/credentials';
import { startGateway, type RunningGateway } from '../../support/server';
import { expectEnvelope, loginCookie, SESSION_COOKIE } from '../../support/http';

const LOGGED_OUT = {
  status: 200,
  code: 'unauthorized',
  message: 'Unauthorized',
  isLoggedIn: false,
  username: '',
  name: '',
  email: '',
  provider: '',
  oauth: false,
  totpPending: 'false',
};

describe('GET /api/user', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')},carol:${hashOf('carol-pw')}:${TOTP_SECRET}`, LOGIN_MAX_RETRIES: '0' });
  });
  afterAll(() => gw.close());

  const user = (headers: Record<string, string> = {}): Promise<Response> => fetch(`${gw.url}/api/user`, { headers });

  it('answers 200 with the logged-out shape when nobody is logged in', async () => {
    expect(await expectEnvelope(await user(), 200)).toEqual(LOGGED_OUT);
  });

  it('reports a session login with every field and its type', async () => {
    const before = Date.now();
    const cookie = await loginCookie(gw, 'alice', 'alice-pw');
    const body = await expectEnvelope(await user({ cookie }), 200);
    const provenAt = (body.proven as { password: number }).password;
    expect(provenAt).toBeGreaterThanOrEqual(before);
    expect(provenAt).toBeLessThanOrEqual(Date.now());
    expect(body).toEqual({
      status: 200,
      code: 'authenticated',
      message: expect.any(String),
      isLoggedIn: true,
      username: 'alice',
      name: 'alice',
      email: 'alice@example.test',
      provider: 'username',
      oauth: false,
      totpPending: 'false',
      // Issue 33: what this session proved and when (ms since the epoch).
      proven: { password: provenAt },
      amr: ['pwd'],
      acr: 'sfa',
      authTime: provenAt,
    });
  });

  it('counts HTTP Basic credentials as logged in, with provider "basic"', async () => {
    const body = await expectEnvelope(await user({ authorization: basic('alice', 'alice-pw') }), 200);
    expect(body).toMatchObject({ isLoggedIn: true, username: 'alice', provider: 'basic', oauth: false, totpPending: 'false' });
    expect(body).not.toHaveProperty('proven');
  });

  it('answers wrong Basic credentials with the logged-out shape, still 200', async () => {
    expect(await expectEnvelope(await user({ authorization: basic('alice', 'nope') }), 200)).toEqual(LOGGED_OUT);
  });

  it('does not count Basic credentials of an account with TOTP, even with the right password', async () => {
    expect(await expectEnvelope(await user({ authorization: basic('carol', 'carol-pw') }), 200)).toEqual(LOGGED_OUT);
  });

  it('reports a pending TOTP login as not logged in with totpPending "true"', async () => {
    const cookie = await loginCookie(gw, 'carol', 'carol-pw');
    const body = await expectEnvelope(await user({ cookie }), 200);
    expect(body).toMatchObject({ isLoggedIn: false, totpPending: 'true' });
    expect(typeof body.username).toBe('string');
  });

  it.each([
    ['garbage', 'garbage'],
    ['an empty value', ''],
    ['a wrong version prefix', 'v9.AAAA'],
    ['invalid base64', 'v1.!!!!'],
    ['a very long value', `v1.${'A'.repeat(9000)}`],
  ])('answers a cookie holding %s with the logged-out shape', async (_what, value) => {
    expect(await expectEnvelope(await user({ cookie: `${SESSION_COOKIE}=${value}` }), 200)).toEqual(LOGGED_OUT);
  });

  it('answers a malformed Authorization header with the logged-out shape', async () => {
    for (const authorization of ['Basic', 'Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`, 'Bearer abc']) {
      expect(await expectEnvelope(await user({ authorization }), 200)).toEqual(LOGGED_OUT);
    }
  });

  it('answers POST with a 405 envelope', async () => {
    await expectEnvelope(await fetch(`${gw.url}/api/user`, { method: 'POST' }), 405);
  });
});
