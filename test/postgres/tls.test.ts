import * as nodePostgres from 'pg';
import { PostgresDatabase } from '../../src/adapters/state/postgres/postgres-database';
import { DatabaseStartError } from '../../src/adapters/state/sqlite/sqlite-database';
import { silentLogger } from '../support/loggers';
import { FixedClock } from '../support/fakes';
import { PostgresServer } from '../support/postgres-server';

/** DATABASE_SSL against a PostgreSQL that speaks TLS with a certificate from a throwaway CA. */
describe('PostgreSQL over TLS', () => {
  let pg: PostgresServer;
  let ca: string;
  let url: string;
  beforeAll(async () => {
    pg = await PostgresServer.start();
    url = pg.createDatabase('tls');
    ca = await pg.enableTls();
  }, 60_000);
  afterAll(async () => pg?.stop());

  const open = (ssl: 'require' | 'verify-full', caPem: string | null): PostgresDatabase =>
    new PostgresDatabase({ pg: nodePostgres, target: { url, ssl, ca: caPem }, logger: silentLogger, clock: new FixedClock(Date.now()) });

  it('connects with verify-full when the certificate chains to DATABASE_CA_FILE', async () => {
    const db = open('verify-full', ca);
    await db.start();
    expect(await db.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).toEqual([{ ssl: true }]);
    await db.close();
  });

  it('refuses to start with verify-full when the certificate does not chain to a trusted CA', async () => {
    const db = open('verify-full', null);
    await expect(db.start()).rejects.toBeInstanceOf(DatabaseStartError);
    await db.close();
  });

  it('encrypts with require, whatever the certificate', async () => {
    const db = open('require', null);
    await db.start();
    expect(await db.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).toEqual([{ ssl: true }]);
    await db.close();
  });
});
