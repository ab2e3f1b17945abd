import * as nodePostgres from 'pg';
import { PostgresDatabase } from '../../src/adapters/postgres/postgres-database';
import { PostgresPasskeyEnrolmentLinks } from '../../src/adapters/state/postgres-passkey-enrolment-links';
import { PostgresPasskeySecondFactorChoices } from '../../src/adapters/state/postgres-passkey-second-factor-choices';
import type { Clock } from '../../src/application/ports/clock';
import { passkeyEnrolmentLinksContract } from '../contract/ports/passkey-enrolment-links.contract';
import { passkeySecondFactorChoicesContract } from '../contract/ports/passkey-second-factor-choices.contract';
import type { ContractEnv } from '../contract/ports/harness';
import { silentLogger } from '../support/loggers';
import { PostgresServer } from '../support/postgres-server';

let server: PostgresServer;
let url: string;
beforeAll(async () => {
  server = await PostgresServer.start();
  url = server.createDatabase('passkey_enrol');
}, 60_000);
afterAll(async () => server?.stop());

function openDatabase(clock: Clock): PostgresDatabase {
  return new PostgresDatabase({ pg: nodePostgres, target: { url, ssl: null, ca: null }, logger: silentLogger, clock, reconnectMs: 100 });
}

async function database(env: ContractEnv): Promise<PostgresDatabase> {
  const db = openDatabase(env.clock);
  await db.start();
  env.onCleanup(() => db.close());
  return db;
}

passkeyEnrolmentLinksContract('PostgresPasskeyEnrolmentLinks', async (env) => new PostgresPasskeyEnrolmentLinks(await database(env), env.clock));
passkeySecondFactorChoicesContract('PostgresPasskeySecondFactorChoices', async (env) => new PostgresPasskeySecondFactorChoices(await database(env)));
