import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { AesGcmSigningKeys, SigningKeysUnreadableError } from '../../../src/adapters/crypto/aes-gcm-signing-keys';
import { EXPIRING_TABLES, MIGRATIONS } from '../../../src/adapters/state/sqlite/migrations';
import { SqliteOidcArtifacts } from '../../../src/adapters/state/sqlite/sqlite-oidc-artifacts';
import { SqliteSigningKeys } from '../../../src/adapters/state/sqlite/sqlite-signing-keys';
import { oidcArtifactsContract } from '../ports/oidc-artifacts.contract';
import { signingKeysContract } from '../ports/signing-keys.contract';
import { FixedClock } from '../../support/fakes';
import { tempDataDir } from '../../support/data-dir';
import { openSqliteDatabase, sqliteDatabasePerTest } from '../../support/sqlite';

const SECRET = 'a-test-secret-of-at-least-thirty-two-characters';

oidcArtifactsContract('SqliteOidcArtifacts', (env) => new SqliteOidcArtifacts(sqliteDatabasePerTest(env), env.clock));
signingKeysContract('SqliteSigningKeys', (env) => new SqliteSigningKeys(sqliteDatabasePerTest(env), env.clock));
signingKeysContract(
  'AesGcmSigningKeys over SqliteSigningKeys',
  (env) => new AesGcmSigningKeys(new SqliteSigningKeys(sqliteDatabasePerTest(env), env.clock), SECRET),
);

describe('OIDC state in the embedded database', () => {
  it('appends its schema step after version 1 and registers its expiring table', () => {
    const step = MIGRATIONS.find((m) => m.sql.includes('CREATE TABLE oidc_artifacts'));
    expect(step?.version).toBeGreaterThan(1);
    expect(step?.postgres).toContain('CREATE TABLE oidc_signing_keys');
    expect(EXPIRING_TABLES.map((t) => t.table)).toContain('oidc_artifacts');
  });

  it('keeps artifacts and the key set across a close and reopen (a restart)', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    try {
      const first = openSqliteDatabase(data.dir, clock);
      await new SqliteOidcArtifacts(first, clock).save('RefreshToken', 'rt-1', { grantId: 'g-1', accountId: 'alice' }, 14 * 86_400);
      const keySet = await new AesGcmSigningKeys(new SqliteSigningKeys(first, clock), SECRET).getOrCreate(() => '{"keys":[{"kid":"k1"}]}');
      first.close();

      const second = openSqliteDatabase(data.dir, clock);
      try {
        expect(await new SqliteOidcArtifacts(second, clock).find('RefreshToken', 'rt-1')).toEqual({ grantId: 'g-1', accountId: 'alice' });
        expect(await new AesGcmSigningKeys(new SqliteSigningKeys(second, clock), SECRET).getOrCreate(() => 'never')).toBe(keySet);
      } finally {
        second.close();
      }
    } finally {
      data.remove();
    }
  });

  it('never writes the private key to the files: a stolen data directory does not yield it', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    try {
      const db = openSqliteDatabase(data.dir, clock);
      const marker = 'PRIVATE-EXPONENT-d-0123456789abcdef';
      await new AesGcmSigningKeys(new SqliteSigningKeys(db, clock), SECRET).getOrCreate(() => JSON.stringify({ keys: [{ kid: 'k1', d: marker }] }));
      // Before close too: the WAL holds the fresh commit.
      const files = (): string[] => readdirSync(data.dir).map((f) => readFileSync(join(data.dir, f)).toString('latin1'));
      for (const content of files()) expect(content).not.toContain(marker);
      db.close();
      for (const content of files()) expect(content).not.toContain(marker);
    } finally {
      data.remove();
    }
  });

  it('refuses to open the key set under another SECRET with a clear start-up error', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    try {
      const db = openSqliteDatabase(data.dir, clock);
      await new AesGcmSigningKeys(new SqliteSigningKeys(db, clock), SECRET).getOrCreate(() => '{"keys":[]}');
      const wrong = new AesGcmSigningKeys(new SqliteSigningKeys(db, clock), 'another-secret-of-at-least-thirty-two-chars');
      await expect(wrong.getOrCreate(() => 'never')).rejects.toBeInstanceOf(SigningKeysUnreadableError);
      db.close();
    } finally {
      data.remove();
    }
  });

  it('deletes expired artifacts in the periodic sweep, and keeps records without expiry', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    try {
      const db = openSqliteDatabase(data.dir, clock);
      const store = new SqliteOidcArtifacts(db, clock);
      for (let i = 0; i < 20; i += 1) await store.save('AuthorizationCode', `c${i}`, { grantId: 'g' }, 60);
      await store.save('Grant', 'g', { accountId: 'alice' }, undefined);
      clock.advance(61_000);
      await db.sweep();
      const count = (db.db.prepare('SELECT count(*) AS n FROM oidc_artifacts').get() as { n: number }).n;
      expect(count).toBe(1);
      expect(await store.find('Grant', 'g')).toEqual({ accountId: 'alice' });
      db.close();
    } finally {
      data.remove();
    }
  });
});
