import * as ioredis from 'ioredis';
import { RedisConnection } from '../../../src/adapters/state/redis/redis-connection';
import type { RedisTarget } from '../../../src/config/redis-url';
import type { ContractEnv } from '../../contract/ports/harness';
import { silentLogger } from '../../support/loggers';
import { RedisServer } from '../../support/redis-server';

export interface SharedRedis {
  /** A connection with a prefix of its own (an empty store on the shared server), or the prefix given (two replicas of one gateway). */
  connect(prefix?: string): Promise<RedisConnection>;
  /** A connection to another server (one a test starts and stops itself), closed with the others after the last test. */
  connectTo(target: RedisTarget, prefix: string): Promise<RedisConnection>;
  /** A fresh connection per test, closed after it: the shared contract harness runs the same suites as for the in-memory adapters. */
  perTest(env: ContractEnv): Promise<RedisConnection>;
}

/**
 * One real redis-server for the whole test file, started before its first test and stopped after its
 * last, once every connection handed out has been closed. `stem` starts each generated key prefix, so
 * the keys of one file are easy to tell apart when a test lists them.
 */
export function sharedRedis(stem: string): SharedRedis {
  let server: RedisServer;
  const connections: RedisConnection[] = [];
  let prefixes = 0;

  beforeAll(async () => {
    server = await RedisServer.start();
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.close()));
    await server.stop();
  });

  async function connectTo(target: RedisTarget, prefix: string): Promise<RedisConnection> {
    const c = new RedisConnection({ ioredis, target, prefix, logger: silentLogger });
    connections.push(c);
    await c.ready();
    return c;
  }
  const connect = (prefix = `${stem}${(prefixes += 1)}:`): Promise<RedisConnection> => connectTo(server.target, prefix);
  return {
    connect,
    connectTo,
    async perTest(env) {
      const c = await connect();
      env.onCleanup(() => c.close());
      return c;
    },
  };
}
