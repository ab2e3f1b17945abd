import Redis from 'ioredis';
import { RedisServer } from '../support/redis-server';
import { eventually } from '../support/wait';
import { hashOf } from '../support/credentials';
import { cookieFrom, startGateway, type RunningGateway } from '../support/server';

const json = { 'Content-Type': 'application/json' };
const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'app.example.test', 'X-Forwarded-Uri': '/', Accept: 'application/json' };
const PAUSE_MS = 2500;

const authStatus = async (gw: RunningGateway, cookie: string): Promise<number> =>
  (await fetch(`${gw.url}/api/auth/traefik`, { headers: { ...forwarded, cookie: `portcullis-session=${cookie}` } })).status;

describe('a replica that starts while Redis cannot answer yet', () => {
  let redis: RedisServer;
  let a: RunningGateway;
  let b: RunningGateway | undefined;
  const users = ['carol', 'alice', 'dave', 'erin'].map((u) => `${u}:${hashOf('pw')}`).join(',');
  let env: Record<string, string>;

  beforeAll(async () => {
    redis = await RedisServer.start();
    env = { USERS: users, REDIS_URL: redis.url };
    a = await startGateway(env);
    expect(await eventually(async () => (await fetch(`${a.url}/api/ready`)).status === 200)).toBe(true);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await redis?.stop();
  });

  it('never lets a cookie revoked on another replica through before it has loaded the revocations, and says it is not ready', async () => {
    const session = async (email: string): Promise<string> => {
      const res = await fetch(`${a.url}/api/login`, { method: 'POST', headers: json, body: JSON.stringify({ email, password: 'pw' }) });
      const c = cookieFrom(res, 'portcullis-session');
      if (res.status !== 200 || c === null) throw new Error(`login failed with ${res.status}`);
      return c.value;
    };
    const revoked = await session('carol');
    const live = await session('alice');
    const loggedOutOnB = await session('dave');
    expect((await fetch(`${a.url}/api/logout`, { method: 'POST', headers: { ...json, cookie: `portcullis-session=${revoked}` }, body: '{}' })).status).toBe(
      200,
    );
    expect(await authStatus(a, revoked)).toBe(401);

    // Redis stops answering every client for a while, so the new replica's first sync cannot finish.
    const admin = new Redis({ host: '127.0.0.1', port: redis.port, lazyConnect: true });
    await admin.connect();
    await admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL');
    admin.disconnect();
    const pausedUntil = Date.now() + PAUSE_MS;

    b = await startGateway(env);
    const seen = new Set<number>();
    const readiness = new Set<number>();
    while (Date.now() < pausedUntil - 200) {
      seen.add(await authStatus(b, revoked));
      readiness.add((await fetch(`${b.url}/api/ready`)).status);
      await new Promise((r) => setTimeout(r, 50));
    }
    // A logout on the replica that is still loading is honoured, not refused.
    expect(
      (await fetch(`${b.url}/api/logout`, { method: 'POST', headers: { ...json, cookie: `portcullis-session=${loggedOutOnB}` }, body: '{}' })).status,
    ).toBe(200);
    expect(seen.has(200)).toBe(false);
    expect([...seen]).toEqual([503]);
    expect([...readiness]).toEqual([503]);
    const body = (await (await fetch(`${b.url}/api/ready`)).json()) as { down?: string[] };
    expect(body.down).toContain('revocations');

    // Once Redis answers, the replica syncs: the revoked cookie is refused, the live one passes, and it is ready.
    expect(await eventually(async () => (await fetch(`${b!.url}/api/ready`)).status === 200)).toBe(true);
    expect(await authStatus(b, revoked)).toBe(401);
    expect(await authStatus(b, live)).toBe(200);
    expect(await authStatus(b, loggedOutOnB)).toBe(401);
    expect(await eventually(async () => (await authStatus(a, loggedOutOnB)) === 401)).toBe(true);
  });

  it('loads a large revocation set in pages: it never lets a revoked cookie through meanwhile and becomes ready', async () => {
    const res = await fetch(`${a.url}/api/login`, { method: 'POST', headers: json, body: JSON.stringify({ email: 'erin', password: 'pw' }) });
    const revoked = cookieFrom(res, 'portcullis-session')?.value ?? '';
    expect((await fetch(`${a.url}/api/logout`, { method: 'POST', headers: { ...json, cookie: `portcullis-session=${revoked}` }, body: '{}' })).status).toBe(
      200,
    );
    // 200,000 other live revocations: one reply with all of them takes longer than a command may.
    const admin = new Redis({ host: '127.0.0.1', port: redis.port });
    const until = Date.now() + 3_600_000;
    for (let i = 0; i < 200; i += 1) {
      const args: (string | number)[] = [];
      for (let j = 0; j < 1000; j += 1) args.push(until, `filler-${i}-${j}-0123456789abcdef0123456789abcdef`);
      await admin.zadd('portcullis:revoked', ...args);
    }
    admin.disconnect();

    const c = await startGateway(env);
    try {
      const seen = new Set<number>();
      const readyAt = Date.now() + 25_000;
      let ready = false;
      while (!ready && Date.now() < readyAt) {
        seen.add(await authStatus(c, revoked));
        ready = (await fetch(`${c.url}/api/ready`)).status === 200;
      }
      expect(seen.has(200)).toBe(false);
      expect(ready).toBe(true);
      expect(await authStatus(c, revoked)).toBe(401);
    } finally {
      await c.close();
    }
  });
});
