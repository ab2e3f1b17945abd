import { hashOf } from '../support/credentials';
import { PostgresServer } from '../support/postgres-server';
import { startReplicas, stopReplicas } from '../support/replicas';
import type { RunningGateway } from '../support/server';
import { tokensAcrossReplicas } from '../support/token-replicas';

describe('access tokens on two gateways sharing PostgreSQL', () => {
  let pg: PostgresServer;
  let a: RunningGateway;
  let b: RunningGateway;
  beforeAll(async () => {
    pg = await PostgresServer.start();
    [a, b] = await startReplicas({ USERS: `alice:${hashOf('pw')}`, DATABASE_URL: pg.createDatabase('tokens') });
  }, 60_000);
  afterAll(() => stopReplicas([a, b], pg));

  tokensAcrossReplicas(() => [a, b]);
});
