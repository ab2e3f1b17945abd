import { SqliteDatabase } from '../../../src/adapters/state/sqlite/sqlite-database';
import { SqliteLogoutDeliveries } from '../../../src/adapters/state/sqlite/sqlite-logout-deliveries';
import { logoutDeliveriesContract } from '../ports/logout-deliveries.contract';
import { FixedClock } from '../../support/fakes';
import { tempDataDir } from '../../support/data-dir';
import { openSqliteDatabase, sqliteDatabasePerTest } from '../../support/sqlite';

logoutDeliveriesContract('SqliteLogoutDeliveries', (env) => new SqliteLogoutDeliveries(sqliteDatabasePerTest(env)));

describe('SqliteLogoutDeliveries across a restart', () => {
  it('hands out after a restart a delivery queued before it', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    const open = (): SqliteDatabase => openSqliteDatabase(data.dir, clock);
    const d = { id: 'd-1', clientId: 'app', subject: 'sub', sid: 'sid-1', createdAt: clock.now(), attempts: 0, dueAt: clock.now() };
    try {
      const first = open();
      await new SqliteLogoutDeliveries(first).add(d);
      first.close();
      const second = open();
      try {
        expect(await new SqliteLogoutDeliveries(second).claim(clock.now(), 1000, 10)).toEqual([d]);
      } finally {
        second.close();
      }
    } finally {
      data.remove();
    }
  });
});
