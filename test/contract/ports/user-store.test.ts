import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BcryptPasswordHasher } from '../../../src/adapters/crypto/bcrypt-password-hasher';
import { JsonLinesLogger } from '../../../src/adapters/system/logger';
import { CompositeUserStore } from '../../../src/adapters/users/composite-user-store';
import { FileUserStore } from '../../../src/adapters/users/file-user-store';
import { StaticUserStore } from '../../../src/adapters/users/static-user-store';
import { accountFromEntry } from '../../../src/adapters/users/users-list';
import { parseUsersFile } from '../../../src/adapters/users/users-file';
import { aUser } from '../../support/builders';
import { FakeUserStore } from '../../support/fakes';
import { hashOf } from '../../support/server';
import { runUserStoreContract, type ContractAccount } from './user-store.contract';

const DOMAIN = 'example.test';
const hasher = new BcryptPasswordHasher(4);
const quiet = new JsonLinesLogger('silent');
const hashes = new Map<string, string>();
/** bcrypt is slow on purpose; each contract password is hashed once for the whole file. */
const hashFor = (password: string): string => {
  let hash = hashes.get(password);
  if (hash === undefined) hashes.set(password, (hash = hashOf(password)));
  return hash;
};

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-users-'));
  dirs.push(dir);
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const asLines = (accounts: readonly ContractAccount[]): string => accounts.map((a) => `${a.username}:${hashFor(a.password)}`).join('\n') + '\n';
const asYaml = (accounts: readonly ContractAccount[]): string =>
  `users:\n${accounts.map((a) => `  - username: ${a.username}\n    password: "${hashFor(a.password)}"\n    email: ${a.username}@mail.example.test\n    name: ${a.username.toUpperCase()}\n    groups: [staff]\n`).join('')}`;

function fileStore(name: string, render: (accounts: readonly ContractAccount[]) => string) {
  return async (accounts: readonly ContractAccount[]) => {
    const path = tempFile(name, render(accounts));
    const store = new FileUserStore(path, parseUsersFile(render(accounts), path).entries, DOMAIN, hasher, quiet, { watch: false });
    return {
      store,
      remove: async (username: string) => {
        writeFileSync(path, render(accounts.filter((a) => a.username !== username)));
        expect((await store.reload()).kind).toBe('reloaded');
      },
      close: async () => store.close(),
    };
  };
}

runUserStoreContract('FakeUserStore (test double)', async (accounts) => {
  const store = new FakeUserStore(accounts.map((a) => aUser().named(a.username).withPassword(a.password).build()));
  return {
    store,
    remove: async (username) => store.replace(accounts.filter((a) => a.username !== username).map((a) => aUser().named(a.username).withPassword(a.password).build())),
    takeDown: async () => {
      store.down = true;
    },
  };
});

runUserStoreContract('StaticUserStore (USERS)', async (accounts) => ({
  store: new StaticUserStore(accounts.map((a) => accountFromEntry({ username: a.username, hash: hashFor(a.password) }, DOMAIN)), hasher),
}));

runUserStoreContract('FileUserStore, line format', fileStore('users.txt', asLines));

runUserStoreContract('FileUserStore, YAML format', fileStore('users.yaml', asYaml));

runUserStoreContract('CompositeUserStore (USERS then file)', async (accounts) => {
  const [first, ...rest] = accounts;
  const inFile = fileStore('users', asLines);
  const file = await inFile(rest);
  const store = new CompositeUserStore([
    new StaticUserStore([accountFromEntry({ username: first.username, hash: hashFor(first.password) }, DOMAIN)], hasher),
    file.store,
  ]);
  return { store, remove: async (username) => (username === first.username ? undefined : file.remove(username)), close: file.close };
});
