import { SqliteAuditTrail } from '../../../src/adapters/state/sqlite/sqlite-audit-trail';
import { auditEventId } from '../../../src/domain/audit-event-id';
import { auditTrailContract } from '../ports/audit-trail.contract';
import { FixedClock } from '../../support/fakes';
import { tempDataDir } from '../../support/data-dir';
import { openSqliteDatabase, sqliteDatabasePerTest } from '../../support/sqlite';

auditTrailContract('SqliteAuditTrail', (env) => new SqliteAuditTrail(sqliteDatabasePerTest(env)));

const eventAt = (time: number, n: number) => ({
  id: auditEventId(time, `${n}`.padStart(10, '0')),
  time,
  event: 'login_succeeded',
  username: 'ann',
  login: null,
  admin: null,
  ip: '192.0.2.1',
  data: { event: 'login_succeeded', username: 'ann' },
});

describe('SqliteAuditTrail', () => {
  it('keeps the trail across a restart', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    try {
      const first = openSqliteDatabase(data.dir, clock);
      await new SqliteAuditTrail(first).append([eventAt(clock.now(), 1)]);
      first.close();
      const second = openSqliteDatabase(data.dir, clock);
      try {
        expect((await new SqliteAuditTrail(second).query({ limit: 5 })).events).toEqual([eventAt(clock.now(), 1)]);
      } finally {
        second.close();
      }
    } finally {
      data.remove();
    }
  });

  it('prunes a backlog larger than one step, and says how many went', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    const db = openSqliteDatabase(data.dir, clock);
    try {
      const trail = new SqliteAuditTrail(db);
      await trail.append(Array.from({ length: 4500 }, (_, i) => eventAt(clock.now() - 100_000 + i, i)));
      await trail.append([eventAt(clock.now(), 9999)]);
      expect(await trail.prune(clock.now() - 1)).toBe(4500);
      expect((await trail.query({ limit: 10 })).events.map((e) => e.time)).toEqual([clock.now()]);
    } finally {
      db.close();
      data.remove();
    }
  });
});
