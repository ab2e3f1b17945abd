import Redis from 'ioredis';
import { GatewayProcess } from '../support/gateway-process';
import { freePort, RedisServer } from '../support/redis-server';
import { hashOf, TEST_SECRET } from '../support/server';

describe('graceful shutdown with Redis', () => {
  let redis: RedisServer;
  let gateway: GatewayProcess | undefined;
  let probe: Redis;
  beforeAll(async () => {
    redis = await RedisServer.start();
    probe = new Redis(redis.port, '127.0.0.1');
  });
  afterAll(async () => {
    gateway?.kill();
    probe.disconnect();
    await redis.stop();
  });

  const gatewayClients = async (): Promise<number> => {
    const list = await probe.client('LIST');
    return String(list).split('\n').filter((l) => l.includes('cmd=') && !l.includes('cmd=client')).length;
  };

  it('exits 0 on SIGTERM with Redis connected, leaving no Redis client behind', async () => {
    const port = await freePort();
    gateway = GatewayProcess.start({
      APP_URL: 'http://localhost',
      SECRET: TEST_SECRET,
      USERS: `alice:${hashOf('pw')}`,
      PORT: String(port),
      ADDRESS: '127.0.0.1',
      REDIS_URL: redis.url,
    });
    await gateway.waitFor('redis connected');
    const res = await fetch(`http://127.0.0.1:${port}/api/ready`);
    expect(await res.json()).toMatchObject({ checks: { redis: 'up' } });
    expect(await gatewayClients()).toBe(2);

    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    expect(await gatewayClients()).toBe(0);
  });
});
