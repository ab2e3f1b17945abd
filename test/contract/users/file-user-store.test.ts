import { optionalModules } from '../../../src/composition/optional-modules';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BcryptPasswordHasher } from '../../../src/adapters/crypto/bcrypt-password-hasher';
import type { LogLevel } from '../../../src/adapters/system/logger';
import { TestLogger } from '../../support/loggers';
import { FileUserStore, type FileUserStoreOptions, type ReloadOutcome } from '../../../src/adapters/users/file-user-store';
import { parseUsersFile } from '../../../src/config/users-file';
import { hashOf } from '../../support/credentials';

const HASH = hashOf('pw');
const hasher = new BcryptPasswordHasher(4);

// Reloads follow real file-system events; a busy machine can take a while to deliver them.
jest.setTimeout(20_000);

describe('FileUserStore reloading', () => {
  let dir: string;
  let store: FileUserStore | null = null;
  let logged: Array<{ level: LogLevel; line: Record<string, unknown> }>;
  let outcomes: ReloadOutcome[];
  let waiters: Array<{ kind: ReloadOutcome['kind']; resolve: (o: ReloadOutcome) => void }>;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-reload-'));
    logged = [];
    outcomes = [];
    waiters = [];
  });
  afterEach(() => {
    store?.close();
    store = null;
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a watching store on `text`; `next(kind)` resolves at the next reload outcome of that kind. */
  function open(name: string, text: string, options: FileUserStoreOptions = {}): { path: string; store: FileUserStore } {
    const path = join(dir, name);
    writeFileSync(path, text);
    const logger = new TestLogger('debug', (line, level) => logged.push({ level, line: JSON.parse(line) as Record<string, unknown> }));
    store = new FileUserStore(path, parseUsersFile(text, path, optionalModules.yaml).entries, 'example.test', hasher, logger, optionalModules.yaml, {
      debounceMs: 20,
      pollIntervalMs: 50,
      ...options,
      onReload: (outcome) => {
        outcomes.push(outcome);
        const i = waiters.findIndex((w) => w.kind === outcome.kind);
        if (i >= 0) waiters.splice(i, 1)[0].resolve(outcome);
      },
    });
    store.start();
    return { path, store };
  }
  const next = (kind: ReloadOutcome['kind']): Promise<ReloadOutcome> => new Promise((resolve) => waiters.push({ kind, resolve }));

  it('picks up an account added by editing the file in place', async () => {
    const { path, store } = open('users', `alice:${HASH}\n`);
    const reloaded = next('reloaded');
    writeFileSync(path, `alice:${HASH}\nbob:${HASH}\n`);
    expect(await reloaded).toEqual({ kind: 'reloaded', accounts: 2, removed: [] });
    expect((await store.findAccount('bob'))?.username).toBe('bob');
  });

  it('picks up a file replaced by renaming a new one over it, as editors save', async () => {
    const { path, store } = open('users.yaml', `users:\n  - username: alice\n    password: "${HASH}"\n`);
    const reloaded = next('reloaded');
    writeFileSync(join(dir, '.users.yaml.swp'), `users:\n  - username: carol\n    password: "${HASH}"\n    groups: [ops]\n`);
    renameSync(join(dir, '.users.yaml.swp'), path);
    await reloaded;
    expect(await store.findAccount('alice')).toBeNull();
    expect((await store.findAccount('carol'))?.groups).toEqual(['ops']);
  });

  it('notices changes by polling alone when the file system sends no events', async () => {
    const { path, store } = open('users', `alice:${HASH}\n`, { fsEvents: false });
    const reloaded = next('reloaded');
    writeFileSync(path, `bob:${HASH}\n`);
    await reloaded;
    expect(await store.currentAccount('alice')).toBeNull();
    expect(await store.currentAccount('bob')).not.toBeNull();
  });

  it('keeps the last good list when an edit breaks the file, and logs why without the hash', async () => {
    const { path, store } = open('users', `alice:${HASH}\n`);
    const rejected = next('rejected');
    writeFileSync(path, `alice:${HASH}\nbob:not-a-hash\n`);
    expect(await rejected).toEqual({
      kind: 'rejected',
      problems: ['line 2 (bob): password must be a bcrypt ($2a$, $2b$, $2y$) or Argon2 ($argon2id$, $argon2i$) hash'],
    });
    expect((await store.findAccount('alice'))?.username).toBe('alice');
    const warning = logged.find((l) => l.level === 'warn');
    expect(warning?.line).toMatchObject({
      msg: 'users file has problems; the last good list stays in force',
      problems: ['line 2 (bob): password must be a bcrypt ($2a$, $2b$, $2y$) or Argon2 ($argon2id$, $argon2i$) hash'],
    });
    expect(JSON.stringify(logged)).not.toContain(HASH);
  });

  it('keeps the last good list while the file is missing or empty', async () => {
    const { path, store } = open('users', `alice:${HASH}\n`, { watch: false });
    rmSync(path);
    expect(await store.reload()).toEqual({ kind: 'unreadable', reason: 'ENOENT' });
    writeFileSync(path, '');
    expect((await store.reload()).kind).toBe('rejected');
    expect(await store.currentAccount('alice')).not.toBeNull();
    writeFileSync(path, '# nobody\n');
    expect(await store.reload()).toEqual({ kind: 'reloaded', accounts: 0, removed: ['alice'] });
    expect(await store.currentAccount('alice')).toBeNull();
  });

  it('names the accounts a reload removed or disabled (lower-cased), not those that stay', async () => {
    const { path, store } = open(
      'users.yaml',
      `users:\n  - username: Alice\n    password: "${HASH}"\n  - username: bob\n    password: "${HASH}"\n  - username: carol\n    password: "${HASH}"\n`,
      { watch: false },
    );
    writeFileSync(
      path,
      `users:\n  - username: bob\n    password: "${HASH}"\n  - username: carol\n    password: "${HASH}"\n    disabled: true\n  - username: dan\n    password: "${HASH}"\n`,
    );
    expect(await store.reload()).toEqual({ kind: 'reloaded', accounts: 2, removed: ['alice', 'carol'] });
  });

  it('does nothing when the content did not change', async () => {
    const { store } = open('users', `alice:${HASH}\n`, { watch: false });
    expect((await store.reload()).kind).toBe('reloaded');
    expect(await store.reload()).toEqual({ kind: 'unchanged' });
  });

  it('treats a disabled account as unknown: not found, not active', async () => {
    const { store } = open(
      'users.yml',
      `users:\n  - username: alice\n    password: "${HASH}"\n    disabled: true\n  - username: bob\n    password: "${HASH}"\n`,
      { watch: false },
    );
    expect(await store.findAccount('alice')).toBeNull();
    expect(await store.currentAccount('alice')).toBeNull();
    expect(await store.currentAccount('bob')).not.toBeNull();
  });
});
