import { spawn, type ChildProcess } from 'node:child_process';
import * as ioredis from 'ioredis';
import { RedisConnection } from '../../src/adapters/state/redis/redis-connection';
import { parseRedisUrl } from '../../src/config/redis-url';
import { TestLogger } from '../support/loggers';
import { accepts, freePort } from '../support/net';
import { RedisServer } from '../support/redis-server';
import { eventually } from '../support/wait';

/** A connection to `url` whose warnings are kept as parsed JSON. */
function watched(url: string): { connection: RedisConnection; warnings: Array<Record<string, unknown>> } {
  const parsed = parseRedisUrl(url);
  if (!parsed.ok) throw new Error(parsed.problem);
  const warnings: Array<Record<string, unknown>> = [];
  const logger = new TestLogger('warn', (line) => warnings.push(JSON.parse(line) as Record<string, unknown>));
  const connection = new RedisConnection({ ioredis, target: parsed.target, prefix: 't:', logger, maxReconnectDelayMs: 200 });
  connection.start();
  return { connection, warnings };
}

describe('the Redis outage warning against a real redis-server', () => {
  it('names ECONNREFUSED and the address when nothing listens', async () => {
    const port = await freePort();
    const { connection, warnings } = watched(`redis://127.0.0.1:${port}`);
    try {
      expect(await eventually(() => warnings.length > 0)).toBe(true);
      expect(warnings[0]).toMatchObject({ redis: `redis://127.0.0.1:${port}/0`, reason: 'ECONNREFUSED', cause: `connect ECONNREFUSED 127.0.0.1:${port}` });
    } finally {
      await connection.close();
    }
  });

  it('names a closed connection when the server goes away', async () => {
    const server = await RedisServer.start();
    const { connection, warnings } = watched(server.url);
    try {
      await connection.ready();
      await server.kill();
      expect(await eventually(() => warnings.length > 0)).toBe(true);
      expect(warnings[0]).toMatchObject({ reason: 'connection_closed' });
    } finally {
      await connection.close();
      await server.stop();
    }
  });

  it('names a wrong password (WRONGPASS) without the password', async () => {
    const port = await freePort();
    const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--requirepass', 'the-right-one'], {
      stdio: 'ignore',
    });
    expect(await eventually(() => accepts(port))).toBe(true);
    const { connection, warnings } = watched(`redis://:not-the-right-one@127.0.0.1:${port}`);
    try {
      expect(await eventually(() => warnings.length > 0)).toBe(true);
      expect(warnings[0]).toMatchObject({ reason: 'WRONGPASS', cause: 'Redis refused the user name or password in REDIS_URL' });
      expect(JSON.stringify(warnings)).not.toContain('not-the-right-one');
    } finally {
      await connection.close();
      child.kill('SIGKILL');
    }
  });
});
