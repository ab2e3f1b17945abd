import { optionalModules } from '../../../src/composition/optional-modules';
import { SqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database';
import { SqliteHandoffCodes } from '../../../src/adapters/state/sqlite-handoff-codes';
import { handoffCodesContract } from '../ports/handoff-codes.contract';
import type { ContractEnv } from '../ports/harness';
import { FixedClock } from '../../support/fakes';
import { tempDataDir } from '../../support/data-dir';
import { silentLogger } from '../../support/loggers';

/** A database in a fresh temp dir on disk per test, closed and removed after it. */
function perTest(env: ContractEnv): SqliteDatabase {
  const data = tempDataDir();
  const database = SqliteDatabase.open(data.dir, { driver: optionalModules.betterSqlite3(), logger: silentLogger, clock: env.clock });
  env.onCleanup(() => {
    database.close();
    data.remove();
  });
  return database;
}

handoffCodesContract('SqliteHandoffCodes', (env) => new SqliteHandoffCodes(perTest(env), env.clock));

describe('SqliteHandoffCodes across a restart', () => {
  it('redeems a code issued before the database was closed and opened again, once', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    const open = (): SqliteDatabase => SqliteDatabase.open(data.dir, { driver: optionalModules.betterSqlite3(), logger: silentLogger, clock });
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
