import { PostgresAuditTrail } from '../../src/adapters/state/postgres/postgres-audit-trail';
import { auditEventId } from '../../src/domain/audit-event-id';
import { auditTrailContract } from '../contract/ports/audit-trail.contract';
import { FixedClock } from '../support/fakes';
import { sharedPostgres } from './support/shared-postgres';

const pg = sharedPostgres('audit');

auditTrailContract('PostgresAuditTrail', (env) => pg.perTest(env, (db) => new PostgresAuditTrail(db)));

describe('PostgresAuditTrail', () => {
  it('takes a batch larger than one statement, and one replica reads what another appended', async () => {
    const clock = new FixedClock(Date.now());
    const [da, db] = [pg.open(clock), pg.open(clock)];
    await Promise.all([da.start(), db.start()]);
    try {
      const t = clock.now();
      const events = Array.from({ length: 1200 }, (_, i) => ({
        id: auditEventId(t + i, `${i}`.padStart(10, '0')),
        time: t + i,
        event: 'logout',
        username: 'replicated',
        login: null,
        admin: null,
        ip: null,
        data: { event: 'logout', username: 'replicated' },
      }));
      await new PostgresAuditTrail(da).append(events);
      const page = await new PostgresAuditTrail(db).query({ username: 'replicated', limit: 500 });
      expect(page.events).toHaveLength(500);
      expect(page.events[0]).toEqual(events[1199]);
      expect(page.next).toBe(events[700].id);
    } finally {
      await Promise.all([da.close(), db.close()]);
    }
  });
});
