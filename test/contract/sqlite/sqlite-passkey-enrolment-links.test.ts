import { HmacPasskeyEnrolmentLinks } from '../../../src/adapters/crypto/hmac-one-time-links';
import type { SqliteDatabase } from '../../../src/adapters/state/sqlite/sqlite-database';
import { SqlitePasskeyEnrolmentLinks } from '../../../src/adapters/state/sqlite/sqlite-passkey-enrolment-links';
import { SqlitePasskeySecondFactorChoices } from '../../../src/adapters/state/sqlite/sqlite-passkey-second-factor-choices';
import { TEST_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { FixedClock } from '../../support/fakes';
import { openSqliteDatabase, sqliteDatabasePerTest } from '../../support/sqlite';
import { passkeyEnrolmentLinksContract } from '../ports/passkey-enrolment-links.contract';
import { passkeySecondFactorChoicesContract } from '../ports/passkey-second-factor-choices.contract';

passkeyEnrolmentLinksContract('SqlitePasskeyEnrolmentLinks', (env) => new SqlitePasskeyEnrolmentLinks(sqliteDatabasePerTest(env), env.clock));
passkeySecondFactorChoicesContract('SqlitePasskeySecondFactorChoices', (env) => new SqlitePasskeySecondFactorChoices(sqliteDatabasePerTest(env)));

describe('passkey enrolment links and second-factor choices on disk, across a restart', () => {
  it('redeems a link made before the database was closed and opened again, once, and keeps the choice', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    const open = (): SqliteDatabase => openSqliteDatabase(data.dir, clock);
    try {
      const first = open();
      await new HmacPasskeyEnrolmentLinks(new SqlitePasskeyEnrolmentLinks(first, clock), TEST_SECRET).put('code-1', 'dora', clock.now() + 60_000);
      await new SqlitePasskeySecondFactorChoices(first).choose('alice', true);
      first.close();
      const second = open();
      try {
        const links = new HmacPasskeyEnrolmentLinks(new SqlitePasskeyEnrolmentLinks(second, clock), TEST_SECRET);
        expect(await links.take('code-1')).toBe('dora');
        expect(await links.take('code-1')).toBeNull();
        expect(await new SqlitePasskeySecondFactorChoices(second).chosen('alice')).toBe(true);
      } finally {
        second.close();
      }
    } finally {
      data.remove();
    }
  });
});
