import { AesGcmTotpSecretSealer } from '../../../src/adapters/crypto/aes-gcm-totp-secret-sealer';
import { SqliteEnrolledTotpSecrets } from '../../../src/adapters/state/sqlite/sqlite-enrolled-totp-secrets';
import { TEST_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { FixedClock } from '../../support/fakes';
import { openSqliteDatabase, sqliteDatabasePerTest } from '../../support/sqlite';
import { enrolledTotpSecretsContract } from '../ports/enrolled-totp-secrets.contract';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const sealer = new AesGcmTotpSecretSealer(TEST_SECRET);

enrolledTotpSecretsContract('SqliteEnrolledTotpSecrets', (env) => new SqliteEnrolledTotpSecrets(sqliteDatabasePerTest(env), sealer, () => env.clock.now()));

describe('SqliteEnrolledTotpSecrets on disk', () => {
  const clock = new FixedClock(1_760_000_000_000);

  it('keeps an enrolment when the database is closed and opened again, and stores it sealed, never in the clear', async () => {
    const data = tempDataDir();
    try {
      let database = openSqliteDatabase(data.dir, clock);
      const first = new SqliteEnrolledTotpSecrets(database, sealer, () => clock.now());
      // openSqliteDatabase has opened the file already: the adapter registered after, so it loads now.
      expect(await first.enrol('alice', SECRET)).toBe(true);
      const rows = database.db.prepare('SELECT username, sealed FROM enrolled_totp_secrets').all() as { username: string; sealed: string }[];
      expect(rows).toHaveLength(1);
      expect(rows[0].sealed).not.toContain(SECRET);
      database.close();
      database = openSqliteDatabase(data.dir, clock);
      const again = new SqliteEnrolledTotpSecrets(database, sealer, () => clock.now());
      expect(again.secretOf('alice')).toBe(SECRET);
      database.close();
    } finally {
      data.remove();
    }
  });

  it('a sealed secret moved onto another account’s row, or read under another SECRET, counts as none', async () => {
    const data = tempDataDir();
    try {
      const database = openSqliteDatabase(data.dir, clock);
      const store = new SqliteEnrolledTotpSecrets(database, sealer, () => clock.now());
      await store.enrol('alice', SECRET);
      database.db
        .prepare(
          "INSERT INTO enrolled_totp_secrets (username, sealed, created_at) SELECT 'mallory', sealed, 0 FROM enrolled_totp_secrets WHERE username = 'alice'",
        )
        .run();
      const reread = new SqliteEnrolledTotpSecrets(database, sealer, () => clock.now());
      const otherKey = new SqliteEnrolledTotpSecrets(database, new AesGcmTotpSecretSealer(`${TEST_SECRET}-other`), () => clock.now());
      expect(reread.secretOf('alice')).toBe(SECRET);
      expect(reread.secretOf('mallory')).toBeNull();
      expect(otherKey.secretOf('alice')).toBeNull();
      database.close();
    } finally {
      data.remove();
    }
  });
});
