import { EventEmitter } from 'node:events';
import { RedisConnection } from '../../../src/adapters/state/redis/redis-connection';
import { TestLogger } from '../../support/loggers';

/** Just enough of an ioredis client to emit the events a real one emits during an outage. */
class FakeRedis extends EventEmitter {
  static last: FakeRedis | null = null;
  status = 'wait';
  constructor(readonly options: Record<string, unknown>) {
    super();
    FakeRedis.last = this;
  }
  connect(): Promise<void> {
    this.status = 'connecting';
    return new Promise(() => undefined);
  }
  disconnect(): void {
    this.status = 'end';
  }
}

function connection() {
  const warnings: Array<Record<string, unknown>> = [];
  const logger = new TestLogger('warn', (line) => warnings.push(JSON.parse(line) as Record<string, unknown>));
  const conn = new RedisConnection({
    ioredis: { default: FakeRedis } as unknown as typeof import('ioredis'),
    target: { kind: 'standalone', host: 'redis.internal', port: 6380, db: 0, tls: false, password: 'hunter2-redis-password' },
    prefix: 'portcullis:',
    logger,
  });
  return { conn, warnings, client: FakeRedis.last as FakeRedis };
}

function systemError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, syscall: 'connect', errno: -111 });
}

function replyError(message: string): Error {
  const e = new Error(message);
  e.name = 'ReplyError';
  return e;
}

describe('a Redis outage warning', () => {
  it('names the system error and its message, and the host:port', () => {
    const { warnings, client } = connection();
    client.emit('error', systemError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.7:6380'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ redis: 'redis://redis.internal:6380/0', reason: 'ECONNREFUSED', cause: 'connect ECONNREFUSED 10.0.0.7:6380' });
  });

  it('names a refused password (WRONGPASS), never the password itself', () => {
    const { warnings, client } = connection();
    client.emit('error', replyError('WRONGPASS invalid username-password pair or user is disabled.'));
    expect(warnings[0]).toMatchObject({ reason: 'WRONGPASS', cause: expect.stringMatching(/password/) });
    expect(JSON.stringify(warnings)).not.toContain('hunter2');
  });

  it('names a missing password (NOAUTH)', () => {
    const { warnings, client } = connection();
    client.emit('error', replyError('NOAUTH Authentication required.'));
    expect(warnings[0]).toMatchObject({ reason: 'NOAUTH', cause: expect.stringMatching(/REDIS_URL/) });
  });

  it('never copies an error reply beyond its code (a reply may quote a command and its keys)', () => {
    const { warnings, client } = connection();
    client.emit('error', replyError("ERR unknown command 'x', with args beginning with: 'portcullis:session:abc'"));
    expect(warnings[0]).toMatchObject({ reason: 'ERR' });
    expect(JSON.stringify(warnings)).not.toContain('session:abc');
  });

  it('says the server closed the connection, rather than a bare "Error"', () => {
    const { warnings, client } = connection();
    client.emit('close');
    expect(warnings[0]).toMatchObject({ reason: 'connection_closed', cause: expect.stringMatching(/closed/) });
  });

  it('says a command got no answer in time', () => {
    const { warnings, client } = connection();
    client.emit('error', new Error('Command timed out'));
    expect(warnings[0]).toMatchObject({ reason: 'command_timeout', cause: expect.stringMatching(/no answer within 500 ms/) });
  });
});
