import { generate } from 'otplib';
import { TOKENS } from '../../src/composition/tokens';
import { capturedLogger } from '../support/loggers';
import { freePort } from '../support/net';
import { RedisServer } from '../support/redis-server';
import { allReady } from '../support/replicas';
import { eventually } from '../support/wait';
import { hashOf, TOTP_SECRET } from '../support/credentials';
import { cookieFrom, startGateway, type RunningGateway } from '../support/server';

const json = { 'Content-Type': 'application/json' };
const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'app.example.test', 'X-Forwarded-Uri': '/', Accept: 'application/json' };

const login = (gw: RunningGateway, email: string, password: string) =>
  fetch(`${gw.url}/api/login`, { method: 'POST', headers: json, body: JSON.stringify({ email, password }) });
const sessionOf = async (gw: RunningGateway, email: string): Promise<string> => {
  const res = await login(gw, email, 'pw');
  const c = cookieFrom(res, 'portcullis-session');
  if (res.status !== 200 || c === null) throw new Error(`login of ${email} failed with ${res.status}`);
  return c.value;
};
const authStatus = async (gw: RunningGateway, cookie: string): Promise<number> =>
  (await fetch(`${gw.url}/api/auth/traefik`, { headers: { ...forwarded, cookie: `portcullis-session=${cookie}` } })).status;

describe('two gateways on one Redis', () => {
  let redis: RedisServer;
  let a: RunningGateway;
  let b: RunningGateway;
  const users = ['alice', 'bob', 'carol', 'dave']
    .map((u) => `${u}:${hashOf('pw')}`)
    .concat(`tom:${hashOf('pw')}:${TOTP_SECRET}`)
    .join(',');
  const logsA = capturedLogger('info');

  beforeAll(async () => {
    redis = await RedisServer.start();
    const env = { USERS: users, REDIS_URL: redis.url, LOGIN_MAX_RETRIES: '3' };
    a = await startGateway({ ...env, METRICS_PORT: String(await freePort()) }, { [TOKENS.Logger]: logsA.logger });
    b = await startGateway(env);
    expect(await allReady(a, b)).toBe(true);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await redis?.stop();
  });

  it('report Redis in readiness', async () => {
    expect(await (await fetch(`${a.url}/api/ready`)).json()).toEqual({
      status: 200,
      code: 'ready',
      message: 'Ready',
      checks: { gateway: 'up', redis: 'up', revocations: 'up', 'totp-enrolments': 'up' },
    });
  });

  it('share a lock: failures on one replica lock the account on the other', async () => {
    for (let i = 0; i < 3; i += 1) expect((await login(a, 'bob', 'wrong')).status).toBe(401);
    const res = await login(b, 'bob', 'pw');
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('share a logout: a session revoked on one replica is refused by the other', async () => {
    const cookie = await sessionOf(a, 'carol');
    expect(await authStatus(b, cookie)).toBe(200);
    expect((await fetch(`${a.url}/api/logout`, { method: 'POST', headers: { ...json, cookie: `portcullis-session=${cookie}` }, body: '{}' })).status).toBe(200);
    expect(await eventually(async () => (await authStatus(b, cookie)) === 401)).toBe(true);
  });

  it('share used TOTP codes: a code accepted by one replica is refused by the other', async () => {
    const pendingOn = async (gw: RunningGateway): Promise<string> => cookieFrom(await login(gw, 'tom', 'pw'), 'portcullis-session')?.value ?? '';
    const code = await generate({ secret: TOTP_SECRET, epoch: Math.floor(Date.now() / 1000) });
    const totp = (gw: RunningGateway, cookie: string) =>
      fetch(`${gw.url}/api/totp`, { method: 'POST', headers: { ...json, cookie: `portcullis-session=${cookie}` }, body: JSON.stringify({ code }) });
    expect((await totp(a, await pendingOn(a))).status).toBe(200);
    expect((await totp(b, await pendingOn(b))).status).toBe(401);
  });

  it('survive a Redis outage: sessions keep working, revoked ones stay out, logins fail closed, logouts catch up, all recover', async () => {
    const live = await sessionOf(a, 'alice');
    const revoked = await sessionOf(a, 'dave');
    const loggedOutDuring = await sessionOf(a, 'carol');
    await fetch(`${b.url}/api/logout`, { method: 'POST', headers: { ...json, cookie: `portcullis-session=${revoked}` }, body: '{}' });
    expect(await eventually(async () => (await authStatus(a, revoked)) === 401)).toBe(true);

    await redis.kill();
    for (const gw of [a, b]) {
      expect(await authStatus(gw, live)).toBe(200);
      expect(await authStatus(gw, revoked)).toBe(401);
      expect((await login(gw, 'alice', 'pw')).status).toBe(503);
      expect((await login(gw, 'alice', 'wrong')).status).toBe(503);
    }
    // A logout during the outage: honoured at once where it happened, and by the others once Redis is back.
    expect(
      (await fetch(`${a.url}/api/logout`, { method: 'POST', headers: { ...json, cookie: `portcullis-session=${loggedOutDuring}` }, body: '{}' })).status,
    ).toBe(200);
    expect(await authStatus(a, loggedOutDuring)).toBe(401);
    expect(await authStatus(b, loggedOutDuring)).toBe(200);
    // Both replicas still answer forward auth, so a load balancer keeps them (readiness 200, Redis
    // named as degraded); the health of every dependency is where the outage shows.
    for (const gw of [a, b]) {
      const readiness = await fetch(`${gw.url}/api/ready`);
      expect(readiness.status).toBe(200);
      expect(await readiness.json()).toMatchObject({ code: 'ready', degraded: ['redis'], checks: { redis: 'down', revocations: 'up' } });
    }
    const health = await fetch(`${a.url}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ code: 'unhealthy', down: ['redis'] });
    const metrics = await a.gateway.listenMetrics(0, '127.0.0.1');
    const during = await (await fetch(`http://127.0.0.1:${metrics?.port}/metrics`)).text();
    expect(during).toContain('portcullis_store_up{store="redis"} 0');

    await redis.up();
    expect(await allReady(a, b)).toBe(true);
    for (const gw of [a, b]) {
      expect(await authStatus(gw, live)).toBe(200);
      expect(await authStatus(gw, revoked)).toBe(401);
    }
    expect(await eventually(async () => (await authStatus(b, loggedOutDuring)) === 401)).toBe(true);
    expect((await login(b, 'alice', 'pw')).status).toBe(200);
    const after = await (await fetch(`http://127.0.0.1:${metrics?.port}/metrics`)).text();
    expect(after).toContain('portcullis_store_up{store="redis"} 1');

    // The restarted Redis came back empty; the replicas gave back what they knew, so a new one knows too.
    const c = await startGateway({ USERS: users, REDIS_URL: redis.url });
    try {
      expect(await eventually(async () => (await authStatus(c, revoked)) === 401)).toBe(true);
      expect(await authStatus(c, live)).toBe(200);
    } finally {
      await c.close();
    }

    await logsA.logger.flush();
    const outageLines = logsA.lines().filter((l) => String(l.msg).startsWith('redis unavailable'));
    expect(outageLines).toHaveLength(1);
    expect(logsA.lines().filter((l) => l.msg === 'redis available again')).toHaveLength(1);
  });
});
