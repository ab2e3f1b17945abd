import { RedisHandoffCodes } from '../../src/adapters/state/redis/redis-handoff-codes';
import { handoffCodesContract } from '../contract/ports/handoff-codes.contract';
import { FixedClock } from '../support/fakes';
import { sharedRedis } from './support/shared-redis';

const { connect, perTest } = sharedRedis('h');

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
