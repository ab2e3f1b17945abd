import { loadConfig } from '../../src/composition/config';
import { createGateway, type Gateway } from '../../src/composition/gateway';
import { DatabaseStartError } from '../../src/adapters/state/sqlite/sqlite-database';
import { hashOf, TEST_SECRET } from '../support/credentials';
import { PostgresServer } from '../support/postgres-server';

/**
 * The library path: building a gateway on PostgreSQL touches nothing (no side effects in the
 * factories); `gateway.start()` checks and creates the schema, and `listen()` waits for it, so a
 * database that can never be used stops the listen path before a request is served.
 */
let pg: PostgresServer;
const gateways: Gateway[] = [];

beforeAll(async () => {
  pg = await PostgresServer.start();
}, 60_000);
afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await pg?.stop();
});

function gatewayOn(databaseUrl: string): Gateway {
  const loaded = loadConfig({
    env: { APP_URL: 'https://auth.example.test', SECRET: TEST_SECRET, USERS: `alice:${hashOf('pw')}`, LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl },
  });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  const gateway = createGateway(loaded.config);
  gateways.push(gateway);
  return gateway;
}

const schemaTable = (database: string): string => pg.sql(database, "SELECT coalesce(to_regclass('portcullis_schema')::text, 'none')").trim();

describe('gateway.start() on PostgreSQL', () => {
  it('creates the schema when started, not when the gateway is built', async () => {
    const url = pg.createDatabase('lazy_start');
    const gateway = gatewayOn(url);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(schemaTable('lazy_start')).toBe('none');
    await gateway.start();
    expect(schemaTable('lazy_start')).toBe('portcullis_schema');
    // Idempotent: the same promise, nothing run twice.
    expect(gateway.start()).toBe(gateway.start());
  });

  it('makes listen() reject with DatabaseStartError on a schema newer than this code', async () => {
    const url = pg.createDatabase('newer_library');
    await gatewayOn(url).start();
    pg.sql('newer_library', "INSERT INTO portcullis_schema (version, description) VALUES (999, 'from the future')");
    const gateway = gatewayOn(url);
    const listening = gateway.listen(0, '127.0.0.1');
    await expect(listening).rejects.toBeInstanceOf(DatabaseStartError);
    await expect(gateway.start()).rejects.toThrow('has schema version 999, newer than this Portcullis knows');
  });
});
