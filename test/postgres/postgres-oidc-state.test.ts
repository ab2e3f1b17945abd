import { AesGcmSigningKeys, SigningKeysUnreadableError } from '../../src/adapters/crypto/aes-gcm-signing-keys';
import { PostgresDatabase } from '../../src/adapters/state/postgres/postgres-database';
import { PostgresOidcArtifacts } from '../../src/adapters/state/postgres/postgres-oidc-artifacts';
import { PostgresSigningKeys } from '../../src/adapters/state/postgres/postgres-signing-keys';
import { oidcArtifactsContract } from '../contract/ports/oidc-artifacts.contract';
import { signingKeysContract } from '../contract/ports/signing-keys.contract';
import type { ContractEnv } from '../contract/ports/harness';
import { FixedClock } from '../support/fakes';
import { sharedPostgres } from './support/shared-postgres';

const SECRET = 'a-test-secret-of-at-least-thirty-two-characters';

const pg = sharedPostgres('oidc_contract');

/** A started database per test on the shared one (the artifact suite uses unique ids; the key suites start from an empty key table). */
async function perTest(env: ContractEnv, emptyKeys = false): Promise<PostgresDatabase> {
  const database = await pg.perTest(env, (db) => db);
  if (emptyKeys) await database.query('DELETE FROM oidc_signing_keys');
  return database;
}

oidcArtifactsContract('PostgresOidcArtifacts', async (env) => new PostgresOidcArtifacts(await perTest(env), env.clock));
signingKeysContract('PostgresSigningKeys', async (env) => new PostgresSigningKeys(await perTest(env, true), env.clock));
signingKeysContract(
  'AesGcmSigningKeys over PostgresSigningKeys',
  async (env) => new AesGcmSigningKeys(new PostgresSigningKeys(await perTest(env, true), env.clock), SECRET),
);

describe('OIDC state in PostgreSQL', () => {
  it('stores one key set when several replicas create it at the same moment', async () => {
    const replicaUrl = pg.server.createDatabase('oidc_keys_race');
    const clock = new FixedClock(Date.now());
    const databases = [pg.open(clock, replicaUrl), pg.open(clock, replicaUrl), pg.open(clock, replicaUrl)];
    try {
      await Promise.all(databases.map((d) => d.start()));
      const sets = await Promise.all(
        databases.map((d, i) =>
          new AesGcmSigningKeys(new PostgresSigningKeys(d, clock), SECRET).getOrCreate(() => JSON.stringify({ keys: [{ kid: `r${i}` }] })),
        ),
      );
      expect(new Set(sets).size).toBe(1);
      const raw = pg.server.sql('oidc_keys_race', "SELECT key_set FROM oidc_signing_keys WHERE name = 'current'").trim();
      expect(raw).toMatch(/^k1\./);
      const wrong = new AesGcmSigningKeys(new PostgresSigningKeys(databases[0], clock), 'another-secret-of-at-least-thirty-two-chars');
      await expect(wrong.getOrCreate(() => 'never')).rejects.toBeInstanceOf(SigningKeysUnreadableError);
    } finally {
      await Promise.all(databases.map((d) => d.close()));
    }
  });

  it('deletes expired artifacts in the sweep and keeps those without expiry', async () => {
    const sweepUrl = pg.server.createDatabase('oidc_sweep');
    const clock = new FixedClock(Date.now());
    const database = pg.open(clock, sweepUrl);
    try {
      await database.start();
      const store = new PostgresOidcArtifacts(database, clock);
      await store.save('AuthorizationCode', 'c-1', { grantId: 'g' }, 60);
      await store.save('Grant', 'g', { accountId: 'alice' }, undefined);
      clock.advance(61_000);
      await database.sweep();
      expect(pg.server.sql('oidc_sweep', 'SELECT id FROM oidc_artifacts').trim()).toBe('g');
    } finally {
      await database.close();
    }
  });
});
