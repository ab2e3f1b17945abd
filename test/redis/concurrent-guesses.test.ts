import * as ioredis from 'ioredis';
import { RedisConnection } from '../../src/adapters/redis/redis-connection';
import { parseRedisUrl, type RedisTarget } from '../../src/adapters/redis/redis-url';
import { RedisLoginAttempts } from '../../src/adapters/state/redis-login-attempts';
import { JsonLinesLogger } from '../../src/adapters/system/logger';
import { concurrentGuessesSuite } from '../support/concurrent-guesses';
import { RedisServer } from '../support/redis-server';

let server: RedisServer;
let target: RedisTarget;
const connections: RedisConnection[] = [];
let prefixes = 0;

beforeAll(async () => {
  server = await RedisServer.start();
  const parsed = parseRedisUrl(server.url);
  if (!parsed.ok) throw new Error(parsed.problem);
  target = parsed.target;
});
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
  await server.stop();
});

// Every round trip to Redis is a chance for simultaneous guesses to slip between a check and its count.
concurrentGuessesSuite('Redis', async () => {
  const c = new RedisConnection({ ioredis, target, prefix: `guesses${(prefixes += 1)}:`, logger: new JsonLinesLogger('silent') });
  connections.push(c);
  await c.ready();
  return new RedisLoginAttempts(c);
});
