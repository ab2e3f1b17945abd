import { TOKENS } from '../../../src/composition/tokens';
import { hashOf } from '../../support/credentials';
import { cookieFrom, startGateway, type RunningGateway } from '../../support/server';
import { askForwardAuth, expectEnvelope, forwardedBy, loginCookie, postJson, SESSION_COOKIE } from '../../support/http';

const APP = 'https://app.example.test/';
const users = `alice:${hashOf('alice-pw')}`;

/** A gateway on a clock the test moves (the way every contract test injects time). */
async function gatewayAt(env: Record<string, string>): Promise<{ gw: RunningGateway; advance: (seconds: number) => void }> {
  let now = Date.now();
  const gw = await startGateway({ USERS: users, ...env }, { [TOKENS.Clock]: { now: () => now } });
  return { gw, advance: (seconds) => (now += seconds * 1000) };
}

const currentSessionOf = async (gw: RunningGateway, cookie: string): Promise<string> =>
  ((await (await fetch(`${gw.url}/api/account`, { headers: { cookie } })).json()) as { currentSession: string }).currentSession;

describe('SESSION_IDLE_TIMEOUT', () => {
  it('lets a session in use through and refuses it once unused for the timeout', async () => {
    const { gw, advance } = await gatewayAt({ SESSION_IDLE_TIMEOUT: '600' });
    try {
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      for (let i = 0; i < 3; i += 1) {
        advance(500);
        expect((await askForwardAuth(gw, 'traefik', { cookie, ...forwardedBy('traefik', APP) })).status).toBe(200);
      }
      advance(600);
      expect((await askForwardAuth(gw, 'traefik', { cookie, ...forwardedBy('traefik', APP) })).status).toBe(401);
      const user = (await (await fetch(`${gw.url}/api/user`, { headers: { cookie } })).json()) as { isLoggedIn: boolean };
      expect(user.isLoggedIn).toBe(false);
    } finally {
      await gw.close();
    }
  });
});

describe('SESSION_MAX_LIFETIME', () => {
  it.each(['traefik', 'nginx', 'caddy'])('renews a session used past half its life through %s: same id, a new cookie', async (proxy) => {
    const { gw, advance } = await gatewayAt({ SESSION_EXPIRY: '3600', SESSION_MAX_LIFETIME: '7200' });
    try {
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      const id = await currentSessionOf(gw, cookie);
      advance(1000);
      const early = await askForwardAuth(gw, proxy, { cookie, ...forwardedBy(proxy, APP) });
      expect(early.status).toBe(200);
      expect(early.headers.getSetCookie()).toEqual([]);
      advance(1000);
      const due = await askForwardAuth(gw, proxy, { cookie, ...forwardedBy(proxy, APP) });
      expect(due.status).toBe(200);
      const renewed = cookieFrom(due, SESSION_COOKIE);
      expect(renewed?.attributes).toEqual(expect.arrayContaining(['Max-Age=3600', 'HttpOnly']));
      const next = `${SESSION_COOKIE}=${renewed?.value}`;
      expect(await currentSessionOf(gw, next)).toBe(id);
      // Past the first expiry: the old cookie is over, the renewed one still passes.
      advance(1700);
      expect((await askForwardAuth(gw, proxy, { cookie, ...forwardedBy(proxy, APP) })).status).toBe(401);
      expect((await askForwardAuth(gw, proxy, { cookie: next, ...forwardedBy(proxy, APP) })).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it('the gateway’s own /api/user renews the cookie too, and never past the bound', async () => {
    const { gw, advance } = await gatewayAt({ SESSION_EXPIRY: '3600', SESSION_MAX_LIFETIME: '4000' });
    try {
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      advance(2000);
      const res = await fetch(`${gw.url}/api/user`, { headers: { cookie } });
      expect(((await res.json()) as { isLoggedIn: boolean }).isLoggedIn).toBe(true);
      expect(cookieFrom(res, SESSION_COOKIE)?.attributes).toContain('Max-Age=2000');
    } finally {
      await gw.close();
    }
  });
});

describe('REMEMBER_ME_EXPIRY', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: users, SESSION_EXPIRY: '3600', REMEMBER_ME_EXPIRY: '2592000' });
  });
  afterAll(() => gw.close());

  it('a login with remember: true gets a cookie that lasts REMEMBER_ME_EXPIRY, one without it SESSION_EXPIRY', async () => {
    const remembered = await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw', remember: true });
    expect(remembered.status).toBe(200);
    expect(cookieFrom(remembered, SESSION_COOKIE)?.attributes).toContain('Max-Age=2592000');
    for (const body of [
      { email: 'alice', password: 'alice-pw' },
      { email: 'alice', password: 'alice-pw', remember: false },
    ]) {
      const plain = await postJson(gw, '/api/login', body);
      expect(cookieFrom(plain, SESSION_COOKIE)?.attributes).toContain('Max-Age=3600');
    }
  });

  it('refuses a remember that is not a boolean with 400 naming the field', async () => {
    for (const remember of ['yes', 1, null]) {
      const res = await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw', remember });
      expect(await expectEnvelope(res, 400)).toMatchObject({ code: 'invalid_fields', fields: ['remember'] });
    }
  });

  it('tells the login page to offer "Keep me signed in"', async () => {
    expect(await expectEnvelope(await fetch(`${gw.url}/api/app`), 200)).toMatchObject({ rememberMe: true });
  });
});
