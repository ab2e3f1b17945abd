import * as ioredis from 'ioredis';
import { RedisConnection } from '../../src/adapters/state/redis/redis-connection';
import { parseRedisUrl } from '../../src/config/redis-url';
import { RedisLoginAttempts } from '../../src/adapters/state/redis/redis-login-attempts';
import { silentLogger } from '../support/loggers';
import { loginAttemptsContract } from '../contract/ports/login-attempts.contract';
import { RedisSentinel, RedisServer } from '../support/redis-server';
import { hashOf } from '../support/credentials';
import { cookieFrom, startGateway } from '../support/server';

let master: RedisServer;
let sentinel: RedisSentinel;
const connections: RedisConnection[] = [];
let prefixes = 0;
const url = (): string => `redis+sentinel://127.0.0.1:${sentinel.port}/portcullis-master`;

beforeAll(async () => {
  master = await RedisServer.start();
  sentinel = await RedisSentinel.start(master, 'portcullis-master');
});
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
  await sentinel.stop();
  await master.stop();
});

loginAttemptsContract('RedisLoginAttempts through Sentinel', async (env) => {
  const parsed = parseRedisUrl(url());
  if (!parsed.ok) throw new Error(parsed.problem);
  const c = new RedisConnection({ ioredis, target: parsed.target, prefix: `s${(prefixes += 1)}:`, logger: silentLogger });
  env.onCleanup(() => c.close());
  await c.ready();
  return new RedisLoginAttempts(c);
});

describe('a gateway with a Sentinel REDIS_URL', () => {
  it('finds the master through the sentinel, is ready, and keeps its state there', async () => {
    const gw = await startGateway({ USERS: `alice:${hashOf('pw')}`, REDIS_URL: url(), LOGIN_MAX_RETRIES: '1' });
    try {
      let ready = await fetch(`${gw.url}/api/ready`);
      for (let i = 0; i < 100 && ready.status !== 200; i += 1) {
        await new Promise((r) => setTimeout(r, 50));
        ready = await fetch(`${gw.url}/api/ready`);
      }
      expect(await ready.json()).toMatchObject({ status: 200, checks: { redis: 'up' } });
      const res = await fetch(`${gw.url}/api/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'alice', password: 'x' }),
      });
      expect(res.status).toBe(401);
      expect(cookieFrom(res, 'portcullis-session')).toBeNull();
      const direct = parseRedisUrl(master.url);
      if (!direct.ok) throw new Error(direct.problem);
      const probe = new RedisConnection({ ioredis, target: direct.target, prefix: 'portcullis:', logger: silentLogger });
      connections.push(probe);
      await probe.ready();
      expect(await probe.client.exists('portcullis:attempts:account:alice')).toBe(1);
    } finally {
      await gw.close();
    }
  });
});
