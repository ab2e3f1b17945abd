import { freePorts } from '../support/net';
import { RedisServer } from '../support/redis-server';
import { upstreamLogoutOnReplicas } from '../support/upstream-logout-replicas';

let redis: RedisServer;
beforeAll(async () => {
  redis = await RedisServer.start();
});
afterAll(async () => redis?.stop());

upstreamLogoutOnReplicas('one Redis', () => ({ REDIS_URL: redis.url }), freePorts);
