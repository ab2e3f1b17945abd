import { freePorts } from '../support/net';
import { replicasShareOidcState } from '../support/oidc-replicas';
import { PostgresServer } from '../support/postgres-server';

let server: PostgresServer;
let url: string;
beforeAll(async () => {
  server = await PostgresServer.start();
  url = server.createDatabase('oidc_replicas');
}, 60_000);
afterAll(async () => server?.stop());

replicasShareOidcState('one PostgreSQL database', () => ({ DATABASE_URL: url }), freePorts);
