import { freePort } from '../../support/net';
import { hashOf, TEST_SECRET, TOTP_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { startGatewayProcess, type Child } from '../../support/process';
import { totpCode } from '../../support/http';
import { GatewayBrowser } from '../../support/oauth-browser';
import { loginAtProvider, startOidcServer, type OidcServer } from '../../support/oidc';

/**
 * The state a single gateway keeps in DATA_DIR survives a restart (clean or kill -9): the built
 * gateway as a process, restarted with the same SECRET and DATA_DIR.
 */
const APP_URL = 'https://auth.example.test';
const APP = 'https://app.example.test/';
const CALLBACK = `${APP_URL}/api/oauth/callback/generic`;
const CLIENT = { client_id: 'portcullis', client_secret: 'generic-client-secret-for-tests', redirect_uris: [CALLBACK] };

interface Running {
  readonly process: Child;
  readonly url: string;
}

const USERS = `alice:${hashOf('alice-pw')},tom:${hashOf('tom-pw')}:${TOTP_SECRET},bob:${hashOf('bob-pw')}`;

async function start(dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  const port = await freePort();
  const process = startGatewayProcess({
    APP_URL,
    SECRET: TEST_SECRET,
    USERS,
    PORT: String(port),
    ADDRESS: '127.0.0.1',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    ...env,
  });
  await process.waitForLine('portcullis listening');
  return { process, url: `http://127.0.0.1:${port}` };
}

async function stop(gw: Running): Promise<void> {
  gw.process.process.kill('SIGTERM');
  await gw.process.exited;
}

function post(gw: Running, path: string, body: unknown, cookie?: string): Promise<Response> {
  return fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie === undefined ? {} : { cookie }) },
    body: JSON.stringify(body),
  });
}

async function login(gw: Running, email: string, password: string): Promise<string> {
  const res = await post(gw, '/api/login', { email, password });
  if (res.status !== 200) throw new Error(`login as ${email} answered ${res.status}`);
  const set = res.headers.getSetCookie().find((c) => c.startsWith('portcullis-session='));
  if (set === undefined) throw new Error('no session cookie');
  return set.split(';')[0];
}

async function forwardAuth(gw: Running, cookie: string): Promise<number> {
  const u = new URL(APP);
  const res = await fetch(`${gw.url}/api/auth/traefik`, {
    redirect: 'manual',
    headers: { cookie, 'x-forwarded-proto': 'https', 'x-forwarded-host': u.host, 'x-forwarded-uri': u.pathname },
  });
  await res.arrayBuffer();
  return res.status;
}

describe('state kept in DATA_DIR across restarts of the gateway process', () => {
  const data = tempDataDir();
  let gw: Running | null = null;
  afterEach(() => gw?.process.kill());
  afterAll(() => data.remove());

  it('keeps refusing a copied cookie after logout and a restart with the same SECRET', async () => {
    gw = await start(data.dir);
    const cookie = await login(gw, 'alice', 'alice-pw');
    const copy = cookie;
    expect(await forwardAuth(gw, copy)).toBe(200);
    expect((await post(gw, '/api/logout', {}, cookie)).status).toBe(200);
    expect(await forwardAuth(gw, copy)).toBe(401);
    await stop(gw);

    gw = await start(data.dir);
    expect(await forwardAuth(gw, copy)).toBe(401);
    // The gateway itself is fine: a fresh login passes.
    expect(await forwardAuth(gw, await login(gw, 'alice', 'alice-pw'))).toBe(200);
  }, 30_000);

  it('keeps a lock across a restart: the right password is still refused', async () => {
    const env = { LOGIN_MAX_RETRIES: '2', LOGIN_TIMEOUT: '600' };
    gw = await start(data.dir, env);
    expect((await post(gw, '/api/login', { email: 'bob', password: 'wrong' })).status).toBe(401);
    const locking = await post(gw, '/api/login', { email: 'bob', password: 'wrong' });
    expect([401, 429]).toContain(locking.status);
    expect((await post(gw, '/api/login', { email: 'bob', password: 'bob-pw' })).status).toBe(429);
    await stop(gw);

    gw = await start(data.dir, env);
    const after = await post(gw, '/api/login', { email: 'bob', password: 'bob-pw' });
    expect(after.status).toBe(429);
    expect(Number(after.headers.get('retry-after'))).toBeGreaterThan(500);
  }, 30_000);

  it('keeps a used TOTP code used across a restart', async () => {
    gw = await start(data.dir);
    const code = await totpCode();
    const pending = await login(gw, 'tom', 'tom-pw');
    expect((await post(gw, '/api/totp', { code }, pending)).status).toBe(200);
    await stop(gw);

    gw = await start(data.dir);
    const again = await login(gw, 'tom', 'tom-pw');
    const replay = await post(gw, '/api/totp', { code }, again);
    expect(replay.status).toBe(401);
    expect(await replay.json()).toEqual({ status: 401, code: 'totp_invalid', message: 'Invalid TOTP code' });
  }, 30_000);

  describe('with an OAuth provider', () => {
    let oidc: OidcServer;
    beforeAll(async () => {
      oidc = await startOidcServer({ clients: [CLIENT], accounts: { alice: { email: 'alice@example.test', email_verified: true, name: 'Alice' } } });
    });
    afterAll(() => oidc?.close());

    it('keeps a completed OAuth flow completed across a restart: the same callback is refused', async () => {
      const env = {
        GENERIC_CLIENT_ID: CLIENT.client_id,
        GENERIC_CLIENT_SECRET: CLIENT.client_secret,
        GENERIC_AUTH_URL: `${oidc.issuer}/auth`,
        GENERIC_TOKEN_URL: `${oidc.issuer}/token`,
        GENERIC_USER_URL: `${oidc.issuer}/me`,
        OAUTH_WHITELIST: '*@example.test',
      };
      gw = await start(data.dir, env);
      const browser = new GatewayBrowser(gw.url);
      const { url } = await browser.start('generic');
      const back = await loginAtProvider(url!.toString(), 'alice', CALLBACK);
      const copied = browser.jar.header();
      expect((await browser.callback(back, 'api')).status).toBe(200);
      await stop(gw);

      gw = await start(data.dir, env);
      const replay = await fetch(`${gw.url}${back.pathname}${back.search}`, { headers: { cookie: copied, accept: 'application/json' } });
      expect(replay.status).toBe(400);
      expect(await replay.json()).toEqual({ status: 400, code: 'oauth_flow_replayed', message: 'This OAuth login was already completed' });
    }, 30_000);
  });
});

describe('a gateway killed (kill -9) while logouts and failed logins are in flight', () => {
  const data = tempDataDir();
  let gw: Running | null = null;
  afterEach(() => gw?.process.kill());
  afterAll(() => data.remove());

  it('loses no acknowledged logout and no acknowledged failed login', async () => {
    const MAX = 300;
    const env = { LOGIN_MAX_RETRIES: String(MAX), LOGIN_TIMEOUT: '3600' };
    gw = await start(data.dir, env);
    const cookies: string[] = [];
    for (let i = 0; i < 60; i += 1) cookies.push(await login(gw, 'alice', 'alice-pw'));

    const running = gw;
    const acknowledgedLogouts: string[] = [];
    let acknowledgedFailures = 0;
    let killed = false;
    // Killed once some of each were answered, while the rest are still in flight.
    const settle = (p: Promise<Response>, onOk: (status: number) => void): Promise<void> =>
      p.then(
        (res) => {
          // Only answers that arrived before the kill count; the process is gone after it.
          if (killed) return;
          onOk(res.status);
          if (acknowledgedLogouts.length >= 10 && acknowledgedFailures >= 10) {
            killed = true;
            running.process.process.kill('SIGKILL');
          }
        },
        () => undefined,
      );
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < cookies.length; i += 1) {
      const cookie = cookies[i];
      inFlight.push(
        settle(post(running, '/api/logout', {}, cookie), (status) => {
          if (status === 200) acknowledgedLogouts.push(cookie);
        }),
      );
      inFlight.push(
        settle(post(running, '/api/login', { email: 'bob', password: `wrong-${i}` }), (status) => {
          if (status === 401) acknowledgedFailures += 1;
        }),
      );
    }
    await Promise.all(inFlight);
    await running.process.exited;
    expect(killed).toBe(true);
    // Something was still in flight when it died (otherwise this would test a clean stop).
    expect(acknowledgedLogouts.length + acknowledgedFailures).toBeLessThan(cookies.length * 2);

    gw = await start(data.dir, env);
    for (const cookie of acknowledgedLogouts) expect(await forwardAuth(gw, cookie)).toBe(401);
    // Every acknowledged failure was counted: fewer than MAX - acknowledged further failures reach the lock.
    let further = 0;
    for (;;) {
      const res = await post(gw, '/api/login', { email: 'bob', password: 'wrong-again' });
      if (res.status === 429) break;
      expect(res.status).toBe(401);
      further += 1;
      if (further > MAX) break;
    }
    expect(further + acknowledgedFailures).toBeLessThanOrEqual(MAX);
  }, 60_000);
});
