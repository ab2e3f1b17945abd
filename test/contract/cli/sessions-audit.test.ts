import { SqliteAuditTrail } from '../../../src/adapters/state/sqlite/sqlite-audit-trail';
import { hashOf, TEST_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { FixedClock } from '../../support/fakes';
import { loginCookie } from '../../support/http';
import { runCli } from '../../support/process';
import { openSqliteDatabase } from '../../support/sqlite';
import { startGateway } from '../../support/server';

/**
 * Issue 36: with the admin console on, what a store-backed command audits reaches the audit trail
 * before the command closes the store (its recorder writes in batches, so it must be flushed).
 */
describe('portcullis sessions revoke and the audit trail', () => {
  const data = tempDataDir();
  const users = `alice:${hashOf('alice-pw')}`;
  const env = { APP_URL: 'https://auth.example.test', SECRET: TEST_SECRET, USERS: users, DATA_DIR: data.dir, ADMIN_GROUPS: 'admins' };
  afterAll(() => data.remove());

  it('leaves its sessions_revoked event in the trail', async () => {
    const gw = await startGateway({ USERS: users, DATA_DIR: data.dir, ADMIN_GROUPS: 'admins' });
    await loginCookie(gw, 'alice', 'alice-pw');
    await gw.close();
    expect(await runCli(['sessions', 'revoke', 'alice', '--all'], { env })).toMatchObject({ code: 0 });

    const db = openSqliteDatabase(data.dir, new FixedClock(Date.now()));
    try {
      const events = (await new SqliteAuditTrail(db).query({ username: 'alice', limit: 10 })).events;
      // The gateway's own event was written at its shutdown; the command's before it exited.
      expect(events.map((e) => e.event)).toEqual(['sessions_revoked', 'login_succeeded']);
      expect(events[0].data).toMatchObject({ by: 'cli', scope: 'all', count: 1 });
    } finally {
      db.close();
    }
  }, 60_000);
});
