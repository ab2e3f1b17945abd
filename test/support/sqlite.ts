import { SqliteDatabase } from '../../src/adapters/state/sqlite/sqlite-database';
import { optionalModules } from '../../src/composition/optional-modules';
import type { ContractEnv } from '../contract/ports/harness';
import type { Clock } from '../../src/application/ports/clock';
import { tempDataDir } from './data-dir';
import { silentLogger } from './loggers';

/** The embedded database in `dir` with the real driver and a silent logger (a test opens it again to play a restart). */
export function openSqliteDatabase(dir: string, clock: Clock): SqliteDatabase {
  return SqliteDatabase.open(dir, { driver: optionalModules.betterSqlite3(), logger: silentLogger, clock });
}

/** A database in a fresh temp dir on disk per test, closed and removed after it. */
export function sqliteDatabasePerTest(env: ContractEnv): SqliteDatabase {
  const data = tempDataDir();
  const database = openSqliteDatabase(data.dir, env.clock);
  env.onCleanup(() => {
    database.close();
    data.remove();
  });
  return database;
}
