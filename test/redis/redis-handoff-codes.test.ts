import * as ioredis from 'ioredis';
import { RedisConnection } from '../../src/adapters/redis/redis-connection';
import type { RedisTarget } from '../../src/adapters/redis/redis-url';
import { RedisHandoffCodes } from '../../src/adapters/state/redis-handoff-codes';
import { handoffCodesContract } from '../contract/ports/handoff-codes.contract';
import type { ContractEnv } from '../contract/ports/harness';
import { FixedClock } from '../support/fakes';
import { silentLogger } from '../support/loggers';
import { RedisServer } from '../support/redis-server';

let server: RedisServer;
let target: RedisTarget;
const connections: RedisConnection[] = [];
let prefixes = 0;

async function connect(prefix = `h${(prefixes += 1)}:`): Promise<RedisConnection> {
  const c = new RedisConnection({ ioredis, target, prefix, logger: silentLogger });
  connections.push(c);
  await c.ready();
  return c;
}

beforeAll(async () => {
  server = await RedisServer.start();
  target = server.target;
});
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
  await server.stop();
});

async function perTest(env: ContractEnv): Promise<RedisConnection> {
  const c = await connect();
  env.onCleanup(() => c.close());
  return c;
}

handoffCodesContract('RedisHandoffCodes', async (env) => new RedisHandoffCodes(await perTest(env), env.clock));

describe('RedisHandoffCodes shared by two replicas', () => {
  const grant = { domain: 'example.org', state: 's'.repeat(43), sealedSession: 'sealed', redirectTarget: 'https://app.example.org/' };

  it('redeems on one replica a code the other issued, once, however many replicas try at the same time', async () => {
    const clock = new FixedClock(Date.now());
    const [a, b] = [new RedisHandoffCodes(await connect('shared:'), clock), new RedisHandoffCodes(await connect('shared:'), clock)];
    await a.put('code-1', grant, clock.now() + 30_000);
    const answers = await Promise.all([b.take('code-1'), a.take('code-1'), b.take('code-1'), a.take('code-1')]);
    expect(answers.filter((x) => x !== null)).toEqual([grant]);
  });

  it('lets Redis forget a code on its own once its time is up (a key with a TTL, never a forever key)', async () => {
    const clock = new FixedClock(Date.now());
    const c = await connect('ttl:');
    await new RedisHandoffCodes(c, clock).put('code-2', grant, clock.now() + 30_000);
    const ttl = await c.run((client) => client.pttl('ttl:handoff:code-2'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });
});
