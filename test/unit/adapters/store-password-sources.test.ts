import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompositeUserStore } from '../../../src/adapters/users/composite-user-store';
import { FileUserStore } from '../../../src/adapters/users/file-user-store';
import { StaticUserStore } from '../../../src/adapters/users/static-user-store';
import { StorePasswordSources } from '../../../src/adapters/users/store-password-sources';
import { optionalModules } from '../../../src/composition/optional-modules';
import { parseUsersFile } from '../../../src/config/users-file';
import { aUser } from '../../support/builders';
import { hashOf } from '../../support/credentials';
import { FakePasswordHasher, FakeUserStore } from '../../support/fakes';
import { silentLogger } from '../../support/loggers';

const OLD_HASH = hashOf('pw');
const NEW_HASH = hashOf('new-pw');

describe('StorePasswordSources', () => {
  let dir: string;
  let path: string;
  let file: FileUserStore;
  const hasher = new FakePasswordHasher();
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-sources-'));
    path = join(dir, 'users.txt');
    writeFileSync(path, `fiona:${OLD_HASH}\nshared:${OLD_HASH}\n`);
    file = new FileUserStore(
      path,
      parseUsersFile(`fiona:${OLD_HASH}\nshared:${OLD_HASH}\n`, path, optionalModules.yaml).entries,
      'example.test',
      hasher,
      silentLogger,
      optionalModules.yaml,
      {
        watch: false,
      },
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names the first store that holds the account, in the login’s order: USERS shadows the file, the file the directory', async () => {
    const users = new StaticUserStore([aUser().named('shared').build(), aUser().named('ulla').build()], hasher);
    const directory = new FakeUserStore([aUser().named('shared').build(), aUser().named('fiona').build(), aUser().named('lars').build()]);
    const sources = new StorePasswordSources(new CompositeUserStore([users, file, directory]));
    expect(await sources.sourceOf('SHARED')).toBe('users');
    expect(await sources.sourceOf('ulla')).toBe('users');
    expect(await sources.sourceOf('fiona')).toBe('file');
    expect(await sources.sourceOf('lars')).toBe('ldap');
    expect(await sources.sourceOf('nobody')).toBeNull();
  });

  it('reads the users file again, so a change written to it is in force when reloadFile resolves', async () => {
    const sources = new StorePasswordSources(new CompositeUserStore([new StaticUserStore([], hasher), file]));
    const before = file.currentAccount('fiona');
    writeFileSync(path, `fiona:${NEW_HASH}\nshared:${OLD_HASH}\n`);
    expect(file.currentAccount('fiona')).toBe(before);
    await sources.reloadFile();
    expect(file.currentAccount('fiona')?.credentialVersion).toBe(NEW_HASH);
  });

  it('works with a single store too, and reloads nothing without a file', async () => {
    const sources = new StorePasswordSources(new StaticUserStore([aUser().named('ulla').build()], hasher));
    expect(await sources.sourceOf('ulla')).toBe('users');
    await expect(sources.reloadFile()).resolves.toBeUndefined();
  });
});
