import * as nodePostgres from 'pg';
import { PostgresDatabase } from '../../src/adapters/postgres/postgres-database';
import { PostgresHandoffCodes } from '../../src/adapters/state/postgres-handoff-codes';
import type { Clock } from '../../src/application/ports/clock';
import { handoffCodesContract } from '../contract/ports/handoff-codes.contract';
import type { ContractEnv } from '../contract/ports/harness';
import { FixedClock } from '../support/fakes';
import { silentLogger } from '../support/loggers';
import { PostgresServer } from '../support/postgres-server';

let server: PostgresServer;
let url: string;
beforeAll(async () => {
  server = await PostgresServer.start();
  url = server.createDatabase('handoff');
}, 60_000);
afterAll(async () => server?.stop());

function openDatabase(clock: Clock): PostgresDatabase {
  return new PostgresDatabase({ pg: nodePostgres, target: { url, ssl: null, ca: null }, logger: silentLogger, clock, reconnectMs: 100 });
}

async function perTest(env: ContractEnv): Promise<PostgresHandoffCodes> {
  const database = openDatabase(env.clock);
  const adapter = new PostgresHandoffCodes(database, env.clock);
  await database.start();
  env.onCleanup(() => database.close());
  return adapter;
}

handoffCodesContract('PostgresHandoffCodes', perTest);

describe('PostgresHandoffCodes shared by two replicas', () => {
  it('redeems on one replica a code the other issued, once, however many replicas try at the same time', async () => {
    const clock = new FixedClock(Date.now());
    const [da, db] = [openDatabase(clock), openDatabase(clock)];
    await Promise.all([da.start(), db.start()]);
    try {
      const [a, b] = [new PostgresHandoffCodes(da, clock), new PostgresHandoffCodes(db, clock)];
      const grant = { domain: 'example.org', state: 's'.repeat(43), sealedSession: 'sealed', redirectTarget: 'https://app.example.org/' };
      await a.put('shared-code', grant, clock.now() + 30_000);
      const answers = await Promise.all([b.take('shared-code'), a.take('shared-code'), b.take('shared-code'), a.take('shared-code')]);
      expect(answers.filter((x) => x !== null)).toEqual([grant]);
    } finally {
      await Promise.all([da.close(), db.close()]);
    }
  });
});
