import * as nodePostgres from 'pg';
import { PostgresDatabase } from '../../../src/adapters/state/postgres/postgres-database';
import type { Clock } from '../../../src/application/ports/clock';
import type { ContractEnv } from '../../contract/ports/harness';
import { silentLogger } from '../../support/loggers';
import { PostgresServer } from '../../support/postgres-server';

export interface SharedPostgres {
  /** The server, for another database of one test's own (`createDatabase`) or a look at the rows (`sql`). */
  readonly server: PostgresServer;
  /** The URL of the file's database. */
  readonly url: string;
  /** A database object (its own pool and listener) on `databaseUrl`, not started: the test starts and closes it. */
  open(clock: Clock, databaseUrl?: string): PostgresDatabase;
  /**
   * An adapter per test on the file's database, closed after the test: `make` runs before the
   * database starts, so an adapter that mirrors a table registers its listener first (as the
   * composition does). The suites use unique keys, so the tests share the one database.
   */
  perTest<T>(env: ContractEnv, make: (database: PostgresDatabase) => T): Promise<T>;
}

/**
 * One real PostgreSQL cluster for the whole test file with one database `database` in it, started
 * before its first test (initdb takes a while: up to a minute) and stopped after its last.
 */
export function sharedPostgres(database: string): SharedPostgres {
  let server: PostgresServer | undefined;
  let url: string | undefined;
  beforeAll(async () => {
    server = await PostgresServer.start();
    url = server.createDatabase(database);
  }, 60_000);
  afterAll(async () => server?.stop());

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the shared PostgreSQL server has not started');
    return value;
  };
  const open = (clock: Clock, databaseUrl: string = started(url)): PostgresDatabase =>
    // A short reconnect delay: the outage tests wait for the reconnection.
    new PostgresDatabase({ pg: nodePostgres, target: { url: databaseUrl, ssl: null, ca: null }, logger: silentLogger, clock, reconnectMs: 100 });
  return {
    get server() {
      return started(server);
    },
    get url() {
      return started(url);
    },
    open,
    async perTest(env, make) {
      const db = open(env.clock);
      const adapter = make(db);
      await db.start();
      env.onCleanup(() => db.close());
      return adapter;
    },
  };
}
