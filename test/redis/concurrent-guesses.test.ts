import * as ioredis from 'ioredis';
import { RedisConnection } from '../../src/adapters/redis/redis-connection';
import type { RedisTarget } from '../../src/adapters/redis/redis-url';
import { RedisLoginAttempts } from '../../src/adapters/state/redis-login-attempts';
import { silentLogger } from '../support/loggers';
import { concurrentGuessesSuite } from '../support/concurrent-guesses';
import { RedisServer } from '../support/redis-server';

let server: RedisServer;
let target: RedisTarget;
const connections: RedisConnection[] = [];
let prefixes = 0;

beforeAll(async () => {
  server = await RedisServer.start();
  target = server.target;
});
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
  await server.stop();
});

// Every round trip to Redis is a chance for simultaneous guesses to slip between a check and its count.
concurrentGuessesSuite('Redis', async () => {
  const c = new RedisConnection({ ioredis, target, prefix: `guesses${(prefixes += 1)}:`, logger: silentLogger });
  connections.push(c);
  await c.ready();
  return new RedisLoginAttempts(c);
});
