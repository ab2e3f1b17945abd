import { rotateAndRetireThroughCli } from '../support/oidc-key-rotation';
import { PostgresServer } from '../support/postgres-server';

jest.setTimeout(120_000);

describe('portcullis oidc keys on PostgreSQL', () => {
  let pg: PostgresServer;
  let url: string;
  beforeAll(async () => {
    pg = await PostgresServer.start();
    url = pg.createDatabase('oidckeys');
  }, 60_000);
  afterAll(() => pg?.stop());

  it('rotates the shared key set: the next start signs with the new key and still publishes the old one until it is retired', async () => {
    const { before, signing, afterRotation, afterRetirement } = await rotateAndRetireThroughCli({ DATABASE_URL: url });
    expect(before).toHaveLength(1);
    expect(afterRotation).toEqual([signing, before[0]]);
    expect(afterRetirement).toEqual([signing]);
  });
});
