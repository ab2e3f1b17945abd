import { rotateAndRetireThroughCli } from '../support/oidc-key-rotation';
import { RedisServer } from '../support/redis-server';

jest.setTimeout(120_000);

describe('portcullis oidc keys on Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await RedisServer.start();
  });
  afterAll(() => redis?.stop());

  it('rotates the shared key set: the next start signs with the new key and still publishes the old one until it is retired', async () => {
    const { before, signing, afterRotation, afterRetirement } = await rotateAndRetireThroughCli({ REDIS_URL: redis.url });
    expect(before).toHaveLength(1);
    expect(afterRotation).toEqual([signing, before[0]]);
    expect(afterRetirement).toEqual([signing]);
  });
});
