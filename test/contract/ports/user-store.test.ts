import { optionalModules } from '../../../src/composition/optional-modules';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BcryptPasswordHasher } from '../../../src/adapters/crypto/bcrypt-password-hasher';
import { silentLogger } from '../../support/loggers';
import { CompositeUserStore } from '../../../src/adapters/users/composite-user-store';
import { FileUserStore } from '../../../src/adapters/users/file-user-store';
import { StaticUserStore } from '../../../src/adapters/users/static-user-store';
import { parseUsersFile } from '../../../src/config/users-file';
import type { Account } from '../../../src/domain/account';
import { cachedHashOf } from '../../support/credentials';
import { FakePasswordHasher, FakeUserStore } from '../../support/fakes';
import type { ContractEnv } from './harness';
import { userStoreContract, type SeedAccount, type UserStoreUnderTest } from './user-store.contract';

const toAccount = (seed: SeedAccount, credentialVersion: string): Account => ({
  username: seed.username,
  email: seed.email,
  name: seed.name,
  groups: seed.groups,
  totpSecret: seed.totpSecret,
  credentialVersion,
});

const hasher = new BcryptPasswordHasher(4);

/** The YAML form of a users file holding `seeds`. */
function usersYaml(seeds: readonly SeedAccount[]): string {
  return `users:\n${seeds
    .map((s) =>
      [
        `  - username: "${s.username}"`,
        `    password: "${cachedHashOf(s.password)}"`,
        `    email: ${s.email}`,
        `    name: ${s.name}`,
        `    groups: [${s.groups.join(', ')}]`,
        ...(s.totpSecret ? [`    totp_secret: ${s.totpSecret}`] : []),
      ].join('\n'),
    )
    .join('\n')}\n`;
}

/** A FileUserStore over a temporary YAML file; `remove` and `change` rewrite the file and reload it. */
function fileStore(env: ContractEnv, seeds: readonly SeedAccount[]): UserStoreUnderTest<'remove' | 'change'> & { store: FileUserStore } {
  let current = [...seeds];
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-users-'));
  const path = join(dir, 'users.yml');
  writeFileSync(path, usersYaml(seeds));
  const store = new FileUserStore(
    path,
    parseUsersFile(usersYaml(seeds), path, optionalModules.yaml).entries,
    'example.test',
    hasher,
    silentLogger,
    optionalModules.yaml,
    { watch: false },
  );
  env.onCleanup(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    store,
    remove: async (username) => {
      current = current.filter((s) => s.username !== username);
      writeFileSync(path, usersYaml(current));
      expect((await store.reload()).kind).toBe('reloaded');
    },
    change: async (username, update) => {
      current = current.map((s) => (s.username === username ? { ...s, ...update } : s));
      writeFileSync(path, usersYaml(current));
      expect((await store.reload()).kind).toBe('reloaded');
    },
  };
}

userStoreContract(
  'StaticUserStore',
  (_env, seeds) =>
    new StaticUserStore(
      seeds.map((s) => toAccount(s, cachedHashOf(s.password))),
      new BcryptPasswordHasher(4),
    ),
);

userStoreContract(
  'FakeUserStore',
  async (_env, seeds) => {
    const fakeHasher = new FakePasswordHasher();
    const accounts = await Promise.all(seeds.map(async (s) => toAccount(s, await fakeHasher.hash(s.password))));
    const store = new FakeUserStore(accounts, fakeHasher);
    return {
      store,
      remove: async (username) => store.replace(accounts.filter((a) => a.username !== username)),
      change: async (username, update) => {
        const changed = await Promise.all(
          accounts.map(async (a) => (a.username === username ? { ...a, groups: update.groups, credentialVersion: await fakeHasher.hash(update.password) } : a)),
        );
        store.replace(changed);
      },
      takeDown: async () => {
        store.down = true;
      },
    };
  },
  ['remove', 'change', 'takeDown'],
);

userStoreContract('FileUserStore (YAML file)', (env, seeds) => fileStore(env, seeds), ['remove', 'change']);

userStoreContract(
  'CompositeUserStore (USERS, then a file)',
  (env, seeds) => {
    // The last seed lives in USERS, the others in the file behind it, so lookups cross both stores;
    // removal (which the suite does to the first seed) happens in the file.
    const inUsers = seeds[seeds.length - 1];
    const file = fileStore(env, seeds.slice(0, -1));
    const store = new CompositeUserStore([new StaticUserStore([toAccount(inUsers, cachedHashOf(inUsers.password))], hasher), file.store]);
    return { store, remove: file.remove, change: file.change };
  },
  ['remove', 'change'],
);

describe('StaticUserStore', () => {
  it('lets a username win over another account that uses it as e-mail', async () => {
    const fake = new FakePasswordHasher();
    const first: Account = { username: 'x@example.com', email: 'x@example.com', name: 'x', groups: [], credentialVersion: 'fake:1' };
    const second: Account = { username: 'y', email: 'x@example.com', name: 'y', groups: [], credentialVersion: 'fake:2' };
    const store = new StaticUserStore([second, first], fake);
    expect((await store.findAccount('x@example.com'))?.username).toBe('x@example.com');
  });

  it('ignores surrounding whitespace in the login', async () => {
    const store = new StaticUserStore(
      [{ username: 'alice', email: 'alice@example.com', name: 'a', groups: [], credentialVersion: 'fake:pw' }],
      new FakePasswordHasher(),
    );
    expect((await store.findAccount('  alice '))?.username).toBe('alice');
  });
});
