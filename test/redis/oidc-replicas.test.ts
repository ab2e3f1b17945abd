import { freePorts } from '../support/net';
import { replicasShareOidcState } from '../support/oidc-replicas';
import { RedisServer } from '../support/redis-server';

let redis: RedisServer;
beforeAll(async () => {
  redis = await RedisServer.start();
});
afterAll(async () => redis?.stop());

replicasShareOidcState('one Redis', () => ({ REDIS_URL: redis.url }), freePorts);
