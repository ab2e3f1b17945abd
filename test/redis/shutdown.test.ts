import Redis from 'ioredis';
import { hashOf } from '../support/credentials';
import { freePort } from '../support/net';
import { startGatewayProcess, type Child } from '../support/process';
import { RedisServer } from '../support/redis-server';

describe('graceful shutdown with Redis', () => {
  let redis: RedisServer;
  let gateway: Child | undefined;
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
    return String(list)
      .split('\n')
      .filter((l) => l.includes('cmd=') && !l.includes('cmd=client')).length;
  };

  it('exits 0 on SIGTERM with Redis connected, leaving no Redis client behind', async () => {
    const port = await freePort();
    gateway = startGatewayProcess({
      USERS: `alice:${hashOf('pw')}`,
      PORT: String(port),
      REDIS_URL: redis.url,
    });
    await gateway.waitForLine('redis connected');
    const res = await fetch(`http://127.0.0.1:${port}/api/ready`);
    expect(await res.json()).toMatchObject({ checks: { redis: 'up' } });
    expect(await gatewayClients()).toBe(2);

    gateway.process.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    expect(await gatewayClients()).toBe(0);
  });
});
