import { RedisLoginAttempts } from '../../src/adapters/state/redis/redis-login-attempts';
import { concurrentGuessesSuite } from '../support/concurrent-guesses';
import { sharedRedis } from './support/shared-redis';

const { connect } = sharedRedis('guesses');

// Every round trip to Redis is a chance for simultaneous guesses to slip between a check and its count.
concurrentGuessesSuite('Redis', async () => new RedisLoginAttempts(await connect()));
