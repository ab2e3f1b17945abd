import { PostgresLogoutDeliveries } from '../../src/adapters/state/postgres/postgres-logout-deliveries';
import { logoutDeliveriesContract } from '../contract/ports/logout-deliveries.contract';
import { FixedClock } from '../support/fakes';
import { sharedPostgres } from './support/shared-postgres';

const pg = sharedPostgres('logout');

logoutDeliveriesContract('PostgresLogoutDeliveries', (env) => pg.perTest(env, (db) => new PostgresLogoutDeliveries(db)));

describe('PostgresLogoutDeliveries shared by two replicas', () => {
  it('gives each queued delivery to one replica only, however often both claim at once', async () => {
    const clock = new FixedClock(Date.now());
    const [da, db] = [pg.open(clock), pg.open(clock)];
    await Promise.all([da.start(), db.start()]);
    try {
      const [a, b] = [new PostgresLogoutDeliveries(da), new PostgresLogoutDeliveries(db)];
      const ids = Array.from({ length: 20 }, (_, i) => `shared-${i}`);
      for (const id of ids) await a.add({ id, clientId: 'app', subject: 's', sid: null, createdAt: clock.now(), attempts: 0, dueAt: clock.now() });
      const claims = await Promise.all([a, b, a, b].map((q) => q.claim(clock.now(), 30_000, 7)));
      const claimed = claims
        .flat()
        .map((d) => d.id)
        .filter((id) => ids.includes(id));
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed.sort()).toEqual([...ids].sort());
    } finally {
      await Promise.all([da.close(), db.close()]);
    }
  });
});
