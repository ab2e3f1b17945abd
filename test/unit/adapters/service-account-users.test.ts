import { StaticUserStore } from '../../../src/adapters/users/static-user-store';
import { accountFromFileEntry, parseUsersFile } from '../../../src/config/users-file';
import { optionalModules } from '../../../src/composition/optional-modules';
import { CredentialCheck } from '../../../src/application/password/credential-check';
import { LoginGuard } from '../../../src/application/password/login-guard';
import { InMemoryLoginAttempts } from '../../../src/adapters/state/memory/in-memory-login-attempts';
import { InMemoryUsedTotpSteps } from '../../../src/adapters/state/memory/in-memory-used-totp-steps';
import { HmacCredentialFingerprints } from '../../../src/adapters/crypto/hmac-credential-fingerprints';
import { lockPolicy } from '../../../src/domain/login-failures';
import type { GatewaySettings } from '../../../src/application/settings';
import { FakePasswordHasher, FakeTotpVerifier, FixedClock, RecordingAuditLog } from '../../support/fakes';
import { TEST_SECRET } from '../../support/credentials';

const yaml = optionalModules.yaml;
const HASH = '$2b$10$' + 'a'.repeat(53);

describe('service accounts in a users file (issue 32)', () => {
  it('reads "service: true" with groups and without a password', () => {
    const parsed = parseUsersFile('users:\n  - username: backup-bot\n    service: true\n    groups: [backups]\n', 'users.yaml', yaml);
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries).toEqual([{ username: 'backup-bot', hash: '', service: true, groups: ['backups'] }]);
    const account = accountFromFileEntry(parsed.entries[0], 'example.org');
    expect(account).toMatchObject({ username: 'backup-bot', service: true, groups: ['backups'], credentialVersion: 'service-account' });
    expect(account.passkeyOnly).toBeUndefined();
  });

  it('refuses a service entry with a password, a TOTP secret or passkey_only, and a service flag that is not a boolean', () => {
    const problemsOf = (entry: string): string =>
      parseUsersFile(`users:\n  - username: bot\n    service: true\n${entry}`, 'users.yaml', yaml).problems.join('; ');
    expect(problemsOf(`    password: "${HASH}"\n`)).toBe('line 2 (bot): a service account has no password (it acts with access tokens only)');
    expect(problemsOf('    totp_secret: JBSWY3DPEHPK3PXP\n')).toBe('line 2 (bot): a service account has no TOTP secret (it never logs in)');
    expect(problemsOf('    passkey_only: true\n')).toBe('line 2 (bot): a service account is not passkey_only (it acts with access tokens only)');
    expect(parseUsersFile('users:\n  - username: bot\n    service: maybe\n', 'users.yaml', yaml).problems.join()).toMatch(/service must be true or false/);
    expect(parseUsersFile('users:\n  - username: bot\n    service: true\n', 'users.yaml', yaml).entries).toHaveLength(1);
  });
});

describe('a service account never logs in', () => {
  const hasher = new FakePasswordHasher();
  const bot = accountFromFileEntry({ username: 'bot', hash: '', service: true }, 'example.org');
  const alice = accountFromFileEntry({ username: 'alice', hash: 'fake:pw' }, 'example.org');
  const store = new StaticUserStore([bot, alice], hasher);

  it('refuses every password at the cost of a wrong one (the decoy check runs)', async () => {
    for (const password of ['', 'service-account', 'fake:', 'x']) {
      const before = hasher.decoys;
      expect(await store.verifyPassword(bot, password, 'client')).toBe(false);
      expect(hasher.decoys).toBe(before + 1);
    }
  });

  it('is refused by the credential check, for the form and for HTTP Basic, exactly like a wrong password', async () => {
    const audit = new RecordingAuditLog();
    const settings = { sessionLifetimeMs: 3_600_000, lock: lockPolicy(100, 60), protectedDomain: null, basicCacheTtlMs: 0 } as unknown as GatewaySettings;
    const guard = new LoginGuard(new InMemoryLoginAttempts(1000), new FixedClock(), settings, audit);
    const check = new CredentialCheck(
      store,
      guard,
      new FakeTotpVerifier(),
      new InMemoryUsedTotpSteps(new FixedClock()),
      audit,
      new HmacCredentialFingerprints(TEST_SECRET),
    );
    const wrong = await check.password({ login: 'alice', password: 'nope', ip: '198.51.100.7' });
    for (const password of ['', 'service-account', 'nope']) {
      expect(await check.password({ login: 'bot', password, ip: '198.51.100.7' })).toEqual(wrong);
      expect(await check.basicPassword({ login: 'bot', password, ip: '198.51.100.7' }, `bot:${password}`)).toMatchObject({
        ok: false,
        error: { code: 'invalid_credentials' },
      });
    }
    expect(store.currentAccount('bot')?.service).toBe(true);
  });
});
