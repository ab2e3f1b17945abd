import { startGatewayProcess, type Child } from '../support/process';
import { freePort } from '../support/net';
import { RedisServer } from '../support/redis-server';
import { hashOf, TEST_SECRET, TOTP_SECRET } from '../support/credentials';
import { totpCode } from '../support/http';
import { PostgresServer } from '../support/postgres-server';

/**
 * Built gateways (`node dist/src/main.js`) as real processes on one throwaway PostgreSQL: what one
 * replica records (logouts, locks, used codes) the others enforce; a crash of PostgreSQL loses
 * nothing acknowledged and lets no revoked session through; restarts keep everything.
 */
const APP_URL = 'https://auth.example.test';
const APP = 'https://app.example.test/';
const USERS = ['alice', 'bob', 'carol', 'dave', 'erin']
  .map((u) => `${u}:${hashOf('pw')}`)
  .concat(`tom:${hashOf('pw')}:${TOTP_SECRET}`)
  .join(',');

interface Running {
  readonly process: Child;
  readonly url: string;
}

let pg: PostgresServer;
let databaseUrl: string;
const running: Running[] = [];

beforeAll(async () => {
  pg = await PostgresServer.start();
  databaseUrl = pg.createDatabase('gateways');
}, 60_000);
afterAll(async () => {
  for (const gw of running) gw.process.kill();
  await pg?.stop();
});

async function start(env: Record<string, string> = {}): Promise<Running> {
  const port = await freePort();
  const process = startGatewayProcess({
    APP_URL,
    SECRET: TEST_SECRET,
    USERS,
    PORT: String(port),
    ADDRESS: '127.0.0.1',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    LOGIN_MAX_RETRIES: '3',
    ...env,
  });
  await process.waitForLine('portcullis listening');
  const gw = { process, url: `http://127.0.0.1:${port}` };
  running.push(gw);
  return gw;
}

async function stop(gw: Running): Promise<void> {
  gw.process.process.kill('SIGTERM');
  await gw.process.exited;
}

const post = (gw: Running, path: string, body: unknown, cookie?: string): Promise<Response> =>
  fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie === undefined ? {} : { cookie }) },
    body: JSON.stringify(body),
  });

async function login(gw: Running, email: string, password = 'pw'): Promise<string> {
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

async function readiness(gw: Running): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gw.url}/api/ready`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

describe('two gateway processes on one PostgreSQL', () => {
  let a: Running;
  let b: Running;
  beforeAll(async () => {
    [a, b] = await Promise.all([start(), start()]);
  });

  it('report PostgreSQL and the loaded revocations in readiness', async () => {
    expect(await readiness(a)).toMatchObject({
      status: 200,
      body: { status: 200, message: 'Ready', checks: { gateway: 'up', postgres: 'up', revocations: 'up' } },
    });
  });

  it('share a logout: a session revoked on one gateway is refused by the other within a second', async () => {
    const cookie = await login(a, 'carol');
    expect(await forwardAuth(b, cookie)).toBe(200);
    expect((await post(a, '/api/logout', {}, cookie)).status).toBe(200);
    const at = Date.now();
    expect(await eventually(async () => (await forwardAuth(b, cookie)) === 401, 1000)).toBe(true);
    expect(Date.now() - at).toBeLessThan(1000);
  });

  it('share a lock: failures on one gateway lock the account on the other', async () => {
    for (let i = 0; i < 3; i += 1) expect((await post(a, '/api/login', { email: 'bob', password: 'wrong' })).status).toBe(401);
    const res = await post(b, '/api/login', { email: 'bob', password: 'pw' });
    expect(res.status).toBe(429);
  });

  it('share used TOTP codes: a code accepted by one gateway is refused by the other', async () => {
    const code = await totpCode();
    expect((await post(a, '/api/totp', { code }, await login(a, 'tom'))).status).toBe(200);
    expect((await post(b, '/api/totp', { code }, await login(b, 'tom'))).status).toBe(401);
  });

  it('survive a PostgreSQL crash: sessions answer from memory, revoked ones stay out, writes fail closed, all recover, nothing acknowledged is lost', async () => {
    const live = await login(a, 'alice');
    const revoked = await login(a, 'dave');
    expect((await post(b, '/api/logout', {}, revoked)).status).toBe(200);
    expect(await eventually(async () => (await forwardAuth(a, revoked)) === 401, 1000)).toBe(true);
    const toLogOut = await login(b, 'erin');

    await pg.down('immediate');
    for (const gw of [a, b]) {
      expect(await forwardAuth(gw, live)).toBe(200);
      expect(await forwardAuth(gw, revoked)).toBe(401);
      expect((await post(gw, '/api/login', { email: 'alice', password: 'wrong' })).status).toBe(503);
    }
    // A logout that cannot be recorded for every replica is refused, not half-done: the person can retry.
    expect((await post(a, '/api/logout', {}, toLogOut)).status).toBe(503);
    // Forward auth still answers from memory: the replica stays ready, PostgreSQL named as degraded.
    const degraded = await readiness(a);
    expect(degraded.status).toBe(200);
    expect(degraded.body).toMatchObject({ degraded: expect.arrayContaining(['postgres']) });
    const health = await fetch(`${a.url}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ code: 'unhealthy', down: expect.arrayContaining(['postgres']) });

    await pg.up();
    expect(await eventually(async () => (await readiness(a)).status === 200 && (await readiness(b)).status === 200, 15_000)).toBe(true);
    for (const gw of [a, b]) {
      expect(await forwardAuth(gw, live)).toBe(200);
      expect(await forwardAuth(gw, revoked)).toBe(401);
    }
    expect((await post(a, '/api/logout', {}, toLogOut)).status).toBe(200);
    expect(await eventually(async () => (await forwardAuth(b, toLogOut)) === 401, 1000)).toBe(true);
    expect((await post(b, '/api/login', { email: 'alice', password: 'pw' })).status).toBe(200);
  });

  it('keep everything across a restart of every gateway', async () => {
    const revoked = await login(a, 'alice');
    expect((await post(a, '/api/logout', {}, revoked)).status).toBe(200);
    await Promise.all([stop(a), stop(b)]);
    const c = await start();
    expect(await forwardAuth(c, revoked)).toBe(401);
    expect((await post(c, '/api/login', { email: 'bob', password: 'pw' })).status).toBe(429);
    expect(await forwardAuth(c, await login(c, 'alice'))).toBe(200);
    await stop(c);
  });
});

describe('two gateway processes on PostgreSQL and Redis', () => {
  let redis: RedisServer;
  let a: Running;
  let b: Running;
  beforeAll(async () => {
    redis = await RedisServer.start();
    const env = { DATABASE_URL: pg.createDatabase('with_redis'), REDIS_URL: redis.url };
    [a, b] = await Promise.all([start(env), start(env)]);
  });
  afterAll(async () => {
    await Promise.all([a, b].map((gw) => gw !== undefined && stop(gw)));
    await redis?.stop();
  });

  it('keep revocations in PostgreSQL and locks in Redis, both shared', async () => {
    expect(await readiness(a)).toMatchObject({
      status: 200,
      body: { status: 200, message: 'Ready', checks: { gateway: 'up', redis: 'up', postgres: 'up', revocations: 'up' } },
    });
    const cookie = await login(a, 'carol');
    expect((await post(a, '/api/logout', {}, cookie)).status).toBe(200);
    expect(await eventually(async () => (await forwardAuth(b, cookie)) === 401, 1000)).toBe(true);
    expect(pg.sql('with_redis', 'SELECT count(*) FROM revoked_sessions').trim()).toBe('1');
    for (let i = 0; i < 3; i += 1) expect((await post(a, '/api/login', { email: 'dave', password: 'wrong' })).status).toBe(401);
    expect((await post(b, '/api/login', { email: 'dave', password: 'pw' })).status).toBe(429);
    // The counters are Redis's: PostgreSQL holds no login attempts in this shape.
    expect(pg.sql('with_redis', 'SELECT count(*) FROM login_attempts').trim()).toBe('0');
  });
});

describe('a gateway on a PostgreSQL schema newer than it knows', () => {
  it('refuses to start with one clear line and exit code 2', async () => {
    const url = pg.createDatabase('newer');
    const first = await start({ DATABASE_URL: url });
    await stop(first);
    pg.sql('newer', "INSERT INTO portcullis_schema (version, description) VALUES (999, 'from the future')");
    const port = await freePort();
    const gw = startGatewayProcess({ APP_URL, SECRET: TEST_SECRET, USERS, PORT: String(port), ADDRESS: '127.0.0.1', DATABASE_URL: url });
    expect(await gw.exited).toBe(2);
    expect(gw.stderr).toContain('Portcullis cannot start; fix the database:');
    expect(gw.stderr).toContain('has schema version 999, newer than this Portcullis knows');
    expect(gw.stderr).not.toContain(pg.password);
  });
});
