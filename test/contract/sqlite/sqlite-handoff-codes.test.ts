import { SqliteDatabase } from '../../../src/adapters/state/sqlite/sqlite-database';
import { SqliteHandoffCodes } from '../../../src/adapters/state/sqlite/sqlite-handoff-codes';
import { handoffCodesContract } from '../ports/handoff-codes.contract';
import { FixedClock } from '../../support/fakes';
import { tempDataDir } from '../../support/data-dir';
import { openSqliteDatabase, sqliteDatabasePerTest } from '../../support/sqlite';

handoffCodesContract('SqliteHandoffCodes', (env) => new SqliteHandoffCodes(sqliteDatabasePerTest(env), env.clock));

describe('SqliteHandoffCodes across a restart', () => {
  it('redeems a code issued before the database was closed and opened again, once', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    const open = (): SqliteDatabase => openSqliteDatabase(data.dir, clock);
    const grant = { domain: 'example.org', state: 's'.repeat(43), sealedSession: 'sealed', redirectTarget: 'https://app.example.org/' };
    try {
      const first = open();
      await new SqliteHandoffCodes(first, clock).put('code-1', grant, clock.now() + 30_000);
      first.close();
      const second = open();
      try {
        const codes = new SqliteHandoffCodes(second, clock);
        expect(await codes.take('code-1')).toEqual(grant);
        expect(await codes.take('code-1')).toBeNull();
      } finally {
        second.close();
      }
    } finally {
      data.remove();
    }
  });
});
