import { hashOf } from '../support/credentials';
import { RedisServer } from '../support/redis-server';
import { startReplicas, stopReplicas } from '../support/replicas';
import type { RunningGateway } from '../support/server';
import { tokensAcrossReplicas } from '../support/token-replicas';

describe('access tokens on two replicas sharing Redis', () => {
  let redis: RedisServer;
  let a: RunningGateway;
  let b: RunningGateway;
  beforeAll(async () => {
    redis = await RedisServer.start();
    [a, b] = await startReplicas({ USERS: `alice:${hashOf('pw')}`, REDIS_URL: redis.url });
  });
  afterAll(() => stopReplicas([a, b], redis));

  tokensAcrossReplicas(() => [a, b]);
});
