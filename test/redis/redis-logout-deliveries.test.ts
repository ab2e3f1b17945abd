import { RedisLogoutDeliveries } from '../../src/adapters/state/redis/redis-logout-deliveries';
import { logoutDeliveriesContract } from '../contract/ports/logout-deliveries.contract';
import { FixedClock } from '../support/fakes';
import { sharedRedis } from './support/shared-redis';

const { connect, perTest } = sharedRedis('lo');

logoutDeliveriesContract('RedisLogoutDeliveries', async (env) => new RedisLogoutDeliveries(await perTest(env)));

describe('RedisLogoutDeliveries shared by two replicas', () => {
  it('gives each queued delivery to one replica only, however often both claim at once', async () => {
    const clock = new FixedClock(Date.now());
    const [a, b] = [new RedisLogoutDeliveries(await connect('shared-lo:')), new RedisLogoutDeliveries(await connect('shared-lo:'))];
    const ids = Array.from({ length: 20 }, (_, i) => `shared-${i}`);
    for (const id of ids) await a.add({ id, clientId: 'app', subject: 's', sid: null, createdAt: clock.now(), attempts: 0, dueAt: clock.now() });
    const claims = await Promise.all([a, b, a, b].map((q) => q.claim(clock.now(), 30_000, 7)));
    const claimed = claims.flat().map((d) => d.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.sort()).toEqual([...ids].sort());
  });

  it('lets Redis forget a delivery on its own (a key with a TTL, never a forever key)', async () => {
    const clock = new FixedClock(Date.now());
    const c = await connect('ttl-lo:');
    await new RedisLogoutDeliveries(c).add({ id: 'd-1', clientId: 'app', subject: 's', sid: null, createdAt: clock.now(), attempts: 0, dueAt: clock.now() });
    expect(await c.run((client) => client.pttl('ttl-lo:logout:delivery:d-1'))).toBeGreaterThan(0);
  });
});
