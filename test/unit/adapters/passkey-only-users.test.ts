import { StaticUserStore } from '../../../src/adapters/users/static-user-store';
import { accountFromFileEntry, parseUsersFile } from '../../../src/config/users-file';
import { formatUsersEntry, parseUsersList, entriesDecoy } from '../../../src/domain/users-list';
import { optionalModules } from '../../../src/composition/optional-modules';
import { FakePasswordHasher } from '../../support/fakes';

const yaml = optionalModules.yaml;
const HASH = '$2b$10$' + 'a'.repeat(53);

describe('passkey-only entries of a users file', () => {
  it('reads "passkey_only: true" without a password in the YAML form', () => {
    const parsed = parseUsersFile('users:\n  - username: dora\n    passkey_only: true\n', 'users.yaml', yaml);
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries).toEqual([{ username: 'dora', hash: '', passkeyOnly: true }]);
    const account = accountFromFileEntry(parsed.entries[0], 'example.org');
    expect(account.passkeyOnly).toBe(true);
    expect(account.credentialVersion).toBe('passkey-only');
  });

  it('reads "name:passkey-only" in the line form of the file, but not in USERS', () => {
    expect(parseUsersList('dora:passkey-only\n', 'line').entries).toEqual([{ username: 'dora', hash: '', passkeyOnly: true }]);
    expect(parseUsersList('dora:passkey-only', 'comma').problems).toHaveLength(1);
    expect(formatUsersEntry({ username: 'dora', hash: '', passkeyOnly: true })).toBe('dora:passkey-only');
  });

  it('refuses a passkey-only entry that also has a password or a TOTP secret', () => {
    const withPassword = parseUsersFile(`users:\n  - username: dora\n    passkey_only: true\n    password: "${HASH}"\n`, 'users.yaml', yaml);
    expect(withPassword.problems.join()).toMatch(/has no password/);
    const withTotp = parseUsersFile('users:\n  - username: dora\n    passkey_only: true\n    totp_secret: JBSWY3DPEHPK3PXP\n', 'users.yaml', yaml);
    expect(withTotp.problems.join()).toMatch(/no TOTP secret/);
    expect(parseUsersList('dora:passkey-only:JBSWY3DPEHPK3PXP\n', 'line').problems).toHaveLength(1);
  });

  it('leaves passkey-only entries out of the decoy parameters', () => {
    expect(
      entriesDecoy([
        { username: 'dora', hash: '', passkeyOnly: true },
        { username: 'a', hash: HASH },
      ]),
    ).toEqual({ kind: 'bcrypt', cost: 10 });
  });
});

describe('StaticUserStore with a passkey-only account', () => {
  const hasher = new FakePasswordHasher();
  const dora = accountFromFileEntry({ username: 'dora', hash: '', passkeyOnly: true }, 'example.org');
  const store = new StaticUserStore([dora], hasher);

  it('refuses every password, at the cost of a wrong one (the decoy check runs)', async () => {
    for (const password of ['', 'passkey-only', 'fake:', 'x']) {
      const before = hasher.decoys;
      expect(await store.verifyPassword(dora, password, 'client')).toBe(false);
      expect(hasher.decoys).toBe(before + 1);
    }
  });

  it('still finds the account (a passkey login needs it)', () => {
    expect(store.currentAccount('dora')?.passkeyOnly).toBe(true);
  });
});
