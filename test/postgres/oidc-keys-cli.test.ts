import { rotateAndRetireThroughCli } from '../support/oidc-key-rotation';
import { sharedPostgres } from './support/shared-postgres';

jest.setTimeout(120_000);

describe('portcullis oidc keys on PostgreSQL', () => {
  const pg = sharedPostgres('oidckeys');

  it('rotates the shared key set: the next start signs with the new key and still publishes the old one until it is retired', async () => {
    const { before, signing, afterRotation, afterRetirement } = await rotateAndRetireThroughCli({ DATABASE_URL: pg.url });
    expect(before).toHaveLength(1);
    expect(afterRotation).toEqual([signing, before[0]]);
    expect(afterRetirement).toEqual([signing]);
  });
});
