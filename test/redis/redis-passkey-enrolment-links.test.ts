import { RedisPasskeyEnrolmentLinks } from '../../src/adapters/state/redis/redis-passkey-enrolment-links';
import { RedisPasskeySecondFactorChoices } from '../../src/adapters/state/redis/redis-passkey-second-factor-choices';
import { passkeyEnrolmentLinksContract } from '../contract/ports/passkey-enrolment-links.contract';
import { passkeySecondFactorChoicesContract } from '../contract/ports/passkey-second-factor-choices.contract';
import { FixedClock } from '../support/fakes';
import { sharedRedis } from './support/shared-redis';

const { connect, perTest } = sharedRedis('pe');

passkeyEnrolmentLinksContract('RedisPasskeyEnrolmentLinks', async (env) => new RedisPasskeyEnrolmentLinks(await perTest(env), env.clock));
passkeySecondFactorChoicesContract('RedisPasskeySecondFactorChoices', async (env) => new RedisPasskeySecondFactorChoices(await perTest(env)));

describe('RedisPasskeyEnrolmentLinks shared by two replicas', () => {
  it('redeems on one replica a link the other stored, once', async () => {
    const clock = new FixedClock(Date.now());
    const [one, two] = [new RedisPasskeyEnrolmentLinks(await connect('shared:'), clock), new RedisPasskeyEnrolmentLinks(await connect('shared:'), clock)];
    await one.put('shared-link', 'dora', clock.now() + 60_000);
    const answers = await Promise.all([two.take('shared-link'), one.take('shared-link'), two.take('shared-link')]);
    expect(answers.filter((x) => x !== null)).toEqual(['dora']);
  });

  it('lets Redis forget a link on its own once its time is up (a key with a TTL)', async () => {
    const clock = new FixedClock(Date.now());
    const c = await connect('ttl:');
    await new RedisPasskeyEnrolmentLinks(c, clock).put('link-2', 'dora', clock.now() + 60_000);
    const ttl = await c.run((client) => client.pttl('ttl:passkey-enrol:link-2'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});
