import { optionalModules } from '../../../src/composition/optional-modules';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Driver from 'better-sqlite3';
import { DATABASE_FILE, DatabaseStartError, SqliteDatabase } from '../../../src/adapters/state/sqlite/sqlite-database';
import { MIGRATIONS } from '../../../src/adapters/state/sqlite/migrations';
import { SqliteLoginAttempts } from '../../../src/adapters/state/sqlite/sqlite-login-attempts';
import { SqliteRevokedSessions } from '../../../src/adapters/state/sqlite/sqlite-revoked-sessions';
import { SqliteUsedOAuthFlows } from '../../../src/adapters/state/sqlite/sqlite-used-oauth-flows';
import { SqliteSessionIndex } from '../../../src/adapters/state/sqlite/sqlite-session-index';
import { sessionIndexContract } from '../ports/session-index.contract';
import { SqliteAccessTokens } from '../../../src/adapters/state/sqlite/sqlite-access-tokens';
import { accessTokensContract } from '../ports/access-tokens.contract';
import type { ContractEnv } from '../ports/harness';
import { SqliteUsedTotpSteps } from '../../../src/adapters/state/sqlite/sqlite-used-totp-steps';
import { SqlitePasskeyCredentials } from '../../../src/adapters/state/sqlite/sqlite-passkey-credentials';
import { passkeyCredentialsContract } from '../ports/passkey-credentials.contract';
import { StateStoreUnavailableError } from '../../../src/application/ports/state-store-unavailable';
import { loginAttemptsContract } from '../ports/login-attempts.contract';
import { revokedSessionsContract } from '../ports/revoked-sessions.contract';
import { usedOAuthFlowsContract } from '../ports/used-oauth-flows.contract';
import { usedTotpStepsContract } from '../ports/used-totp-steps.contract';
import { FixedClock } from '../../support/fakes';
import { tempDataDir } from '../../support/data-dir';
import { openSqliteDatabase, sqliteDatabasePerTest } from '../../support/sqlite';
import { silentLogger, TestLogger } from '../../support/loggers';

/** The newest schema version (steps may be renumbered at merge: never the count of steps). */
const LATEST = MIGRATIONS[MIGRATIONS.length - 1].version;

const silent = silentLogger;
const HOUR = 3_600_000;

loginAttemptsContract('SqliteLoginAttempts', (env) => new SqliteLoginAttempts(sqliteDatabasePerTest(env), env.clock));
revokedSessionsContract('SqliteRevokedSessions', (env) => new SqliteRevokedSessions(sqliteDatabasePerTest(env), env.clock));
usedTotpStepsContract('SqliteUsedTotpSteps', (env) => new SqliteUsedTotpSteps(sqliteDatabasePerTest(env), env.clock));
usedOAuthFlowsContract('SqliteUsedOAuthFlows', (env) => new SqliteUsedOAuthFlows(sqliteDatabasePerTest(env), env.clock));
passkeyCredentialsContract('SqlitePasskeyCredentials', (env) => new SqlitePasskeyCredentials(sqliteDatabasePerTest(env)));
sessionIndexContract('SqliteSessionIndex', (env) => new SqliteSessionIndex(sqliteDatabasePerTest(env), env.clock));

/** Each test's database directory and its open database, so the test can play a restart on the same file. */
const tokenDatabases = new WeakMap<ContractEnv, { dir: string; database: SqliteDatabase }>();
accessTokensContract(
  'SqliteAccessTokens',
  (env) => {
    const data = tempDataDir();
    const database = openSqliteDatabase(data.dir, env.clock);
    tokenDatabases.set(env, { dir: data.dir, database });
    env.onCleanup(() => {
      tokenDatabases.get(env)?.database.close();
      data.remove();
    });
    return new SqliteAccessTokens(database);
  },
  {
    reopen: (env) => {
      const held = tokenDatabases.get(env);
      if (held === undefined) throw new Error('no database for this test');
      // One gateway per file: the first closes (committing what it queued) before the second opens.
      held.database.close();
      const database = openSqliteDatabase(held.dir, env.clock);
      tokenDatabases.set(env, { dir: held.dir, database });
      return new SqliteAccessTokens(database);
    },
  },
);

describe('SqliteSessionIndex on disk', () => {
  it('still lists a session after the database is closed and opened again, and the sweep deletes it once expired', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    const open = () => openSqliteDatabase(data.dir, clock);
    try {
      const first = open();
      const at = clock.now();
      await new SqliteSessionIndex(first, clock).register({
        id: 's1',
        username: 'Alice',
        method: 'totp',
        userAgent: 'ua',
        address: '192.0.2.1',
        startedAt: at,
        expiresAt: at + HOUR,
        lastSeenAt: at,
      });
      first.close();
      const second = open();
      const index = new SqliteSessionIndex(second, clock);
      expect((await index.list('alice')).map((s) => s.id)).toEqual(['s1']);
      clock.advance(HOUR);
      await second.sweep();
      expect(second.db.prepare('SELECT count(*) AS n FROM account_sessions').get()).toEqual({ n: 0 });
      second.close();
    } finally {
      data.remove();
    }
  });
});

describe('SqliteAccessTokens', () => {
  it('answers a lookup on a closed database as unavailable, never as "no such token"', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    const database = openSqliteDatabase(data.dir, clock);
    try {
      const tokens = new SqliteAccessTokens(database);
      await tokens.add({
        id: 't1',
        hash: 'h1',
        username: 'alice',
        name: 'ci',
        apps: null,
        createdAt: clock.now(),
        expiresAt: clock.now() + HOUR,
        lastUsedAt: null,
        revokedAt: null,
      });
      expect(tokens.findByHash('h1')?.id).toBe('t1');
      database.close();
      expect(() => tokens.findByHash('h1')).toThrow(StateStoreUnavailableError);
      await expect(tokens.list('alice')).rejects.toBeInstanceOf(StateStoreUnavailableError);
    } finally {
      database.close();
      data.remove();
    }
  });
});

describe('SQLite state after the database is closed and opened again', () => {
  const data = tempDataDir();
  const clock = new FixedClock(Date.UTC(2026, 5, 1));
  const open = (): SqliteDatabase => openSqliteDatabase(data.dir, clock);
  afterAll(() => data.remove());

  it('keeps revocations, locks, used TOTP steps and used OAuth flows', async () => {
    const first = open();
    await new SqliteRevokedSessions(first, clock).revoke('session-1', clock.now() + HOUR);
    const attempts = new SqliteLoginAttempts(first, clock);
    for (let i = 0; i < 3; i += 1) await attempts.reserve([{ key: 'account:alice', maxFailures: 3 }], clock.now(), 60_000);
    await attempts.reserve([{ key: 'account:bob', maxFailures: 3 }], clock.now(), 60_000);
    expect(await new SqliteUsedTotpSteps(first, clock).claim('alice', 42, clock.now() + 90_000)).toBe(true);
    expect(await new SqliteUsedOAuthFlows(first, clock).use('flow-1', clock.now() + 600_000)).toBe(true);
    first.close();

    const second = open();
    try {
      expect(await new SqliteRevokedSessions(second, clock).isRevoked('session-1')).toBe(true);
      const again = new SqliteLoginAttempts(second, clock);
      expect(await again.lockedUntil('account:alice', clock.now())).toBe(clock.now() + 60_000);
      // A lock loaded at start counts for noLockAfter too, or a cached Basic header would skip it.
      expect(again.noLockAfter()).toBe(clock.now() + 60_000);
      // bob's one earlier failure still counts: two more reach the limit of three
      expect(await again.reserve([{ key: 'account:bob', maxFailures: 3 }], clock.now(), 60_000)).toEqual({ granted: true, locksUntil: [0] });
      expect(await again.reserve([{ key: 'account:bob', maxFailures: 3 }], clock.now(), 60_000)).toEqual({ granted: true, locksUntil: [clock.now() + 60_000] });
      expect(await new SqliteUsedTotpSteps(second, clock).claim('Alice', 42, clock.now() + 90_000)).toBe(false);
      expect(await new SqliteUsedOAuthFlows(second, clock).use('flow-1', clock.now() + 600_000)).toBe(false);
    } finally {
      second.close();
    }
  });
});

describe('SqliteDatabase', () => {
  const dirs: Array<{ remove(): void }> = [];
  afterAll(() => dirs.forEach((d) => d.remove()));
  const freshDir = (): string => {
    const d = tempDataDir();
    dirs.push(d);
    return d.dir;
  };
  const clock = new FixedClock(Date.UTC(2026, 5, 1));

  it('creates the directory and the file owner-only, in WAL mode', () => {
    const dir = join(freshDir(), 'nested', 'data');
    const database = openSqliteDatabase(dir, clock);
    try {
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, DATABASE_FILE)).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, `${DATABASE_FILE}-wal`)).mode & 0o777).toBe(0o600);
      expect(database.db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(database.db.pragma('user_version', { simple: true })).toBe(LATEST);
    } finally {
      database.close();
    }
  });

  it('refuses a database written by a newer Portcullis, naming both schema versions', () => {
    const dir = freshDir();
    const newer = [...MIGRATIONS, { version: LATEST + 1, description: 'future', sql: 'CREATE TABLE future_feature (id TEXT PRIMARY KEY)' }];
    SqliteDatabase.open(dir, { driver: optionalModules.betterSqlite3(), logger: silent, clock, migrations: newer }).close();
    expect(() => openSqliteDatabase(dir, clock)).toThrow(
      new DatabaseStartError(
        `the database in ${dir} has schema version ${LATEST + 1}, newer than this Portcullis knows (${LATEST}): run the newer Portcullis, or restore a backup made by this one`,
      ),
    );
  });

  it('runs only the steps a file has not had yet', () => {
    const dir = freshDir();
    openSqliteDatabase(dir, clock).close();
    const more = [...MIGRATIONS, { version: LATEST + 1, description: 'next feature', sql: 'CREATE TABLE future_feature (id TEXT PRIMARY KEY)' }];
    const database = SqliteDatabase.open(dir, { driver: optionalModules.betterSqlite3(), logger: silent, clock, migrations: more });
    try {
      expect(database.db.pragma('user_version', { simple: true })).toBe(LATEST + 1);
      expect(database.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'passkeys'").get()).toEqual({ n: 1 });
    } finally {
      database.close();
    }
  });

  it('refuses a file that is not a database with one clear error', () => {
    const dir = freshDir();
    writeFileSync(join(dir, DATABASE_FILE), 'this is not a database, just some text that is long enough to have a header'.repeat(20), { mode: 0o600 });
    expect(() => openSqliteDatabase(dir, clock)).toThrow(/is not a readable Portcullis database \(SQLITE_NOTADB\); restore a backup/);
  });

  it('refuses a second gateway on the same data directory', () => {
    const dir = freshDir();
    const first = openSqliteDatabase(dir, clock);
    try {
      expect(() => openSqliteDatabase(dir, clock)).toThrow(/in use by another Portcullis process; one gateway per DATA_DIR/);
    } finally {
      first.close();
    }
    openSqliteDatabase(dir, clock).close();
  });

  it('deletes expired rows on the sweep and keeps live ones', async () => {
    const dir = freshDir();
    const local = new FixedClock(Date.UTC(2026, 5, 1));
    const database = SqliteDatabase.open(dir, { driver: optionalModules.betterSqlite3(), logger: silent, clock: local, sweepChunk: 2 });
    try {
      const revoked = new SqliteRevokedSessions(database, local);
      for (let i = 0; i < 5; i += 1) await revoked.revoke(`short-${i}`, local.now() + 1_000);
      await revoked.revoke('long', local.now() + HOUR);
      await new SqliteUsedOAuthFlows(database, local).use('flow', local.now() + 1_000);
      local.advance(1_000);
      await database.sweep();
      expect(database.db.prepare('SELECT id FROM revoked_sessions').all()).toEqual([{ id: 'long' }]);
      expect(database.db.prepare('SELECT count(*) AS n FROM used_oauth_flows').get()).toEqual({ n: 0 });
      expect(await revoked.isRevoked('long')).toBe(true);
    } finally {
      database.close();
    }
  });

  it('commits the writes of one turn together and answers each after the commit', async () => {
    const dir = freshDir();
    const database = openSqliteDatabase(dir, clock);
    try {
      const revoked = new SqliteRevokedSessions(database, clock);
      await Promise.all(Array.from({ length: 100 }, (_, i) => revoked.revoke(`s-${i}`, clock.now() + HOUR)));
      // Another connection sees all of them once the promises resolved: they were committed.
      const reader = new Driver(join(dir, DATABASE_FILE), { readonly: true });
      expect(reader.prepare('SELECT count(*) AS n FROM revoked_sessions').get()).toEqual({ n: 100 });
      reader.close();
    } finally {
      database.close();
    }
  });

  it('rejects a write that cannot be committed as unavailable, and works again afterwards', async () => {
    const dir = freshDir();
    const lines: string[] = [];
    const logger = new TestLogger('info', (l) => lines.push(l));
    const database = SqliteDatabase.open(dir, { driver: optionalModules.betterSqlite3(), logger, clock });
    try {
      const revoked = new SqliteRevokedSessions(database, clock);
      // Another connection holds the write lock past the busy timeout: the commit cannot happen.
      const other = new Driver(join(dir, DATABASE_FILE));
      database.db.pragma('busy_timeout = 10');
      other.exec('BEGIN IMMEDIATE');
      await expect(revoked.revoke('s-1', clock.now() + HOUR)).rejects.toBeInstanceOf(StateStoreUnavailableError);
      expect(await revoked.isRevoked('s-1')).toBe(false);
      other.exec('ROLLBACK');
      other.close();
      await revoked.revoke('s-1', clock.now() + HOUR);
      expect(await revoked.isRevoked('s-1')).toBe(true);
      expect(lines.map((l) => JSON.parse(l).msg)).toEqual([
        'database write failed: requests that need a durable write answer 503 until it works again',
        'database writes work again',
      ]);
      expect(database.isUp()).toBe(true);
      expect(readFileSync(join(dir, DATABASE_FILE)).length).toBeGreaterThan(0);
    } finally {
      database.close();
    }
  });
});

describe('SqliteLoginAttempts', () => {
  it('says no lock lasts past noLockAfter: nothing before the first lock, then at least every lock it set', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    const database = openSqliteDatabase(data.dir, clock);
    try {
      const attempts = new SqliteLoginAttempts(database, clock);
      expect(attempts.noLockAfter()).toBe(0);
      for (let i = 0; i < 3; i += 1) await attempts.reserve([{ key: 'account:alice', maxFailures: 3 }], clock.now(), 60_000);
      expect(attempts.noLockAfter()).toBe(clock.now() + 60_000);
      for (let i = 0; i < 3; i += 1) await attempts.reserve([{ key: 'address:b', maxFailures: 3 }], clock.now(), 1_000);
      expect(attempts.noLockAfter()).toBe(clock.now() + 60_000);
    } finally {
      database.close();
      data.remove();
    }
  });

  it('writes nothing for the reset after a login that followed no failure', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    const database = openSqliteDatabase(data.dir, clock);
    try {
      const attempts = new SqliteLoginAttempts(database, clock);
      const writes = jest.spyOn(database, 'write');
      await attempts.reset('account:alice');
      expect(writes).not.toHaveBeenCalled();
      await attempts.reserve([{ key: 'account:alice', maxFailures: 3 }], clock.now(), 60_000);
      await attempts.reset('account:alice');
      expect(writes).toHaveBeenCalledTimes(2);
      expect(database.db.prepare('SELECT count(*) AS n FROM login_attempts').get()).toEqual({ n: 0 });
    } finally {
      database.close();
      data.remove();
    }
  });
});

describe('the forward-auth questions never read the database', () => {
  it('answers isRevoked and lockedUntil from memory, even with the connection closed underneath', async () => {
    const data = tempDataDir();
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    const first = openSqliteDatabase(data.dir, clock);
    await new SqliteRevokedSessions(first, clock).revoke('revoked-before', clock.now() + HOUR);
    const attempts = new SqliteLoginAttempts(first, clock);
    for (let i = 0; i < 3; i += 1) await attempts.reserve([{ key: 'account:mallory', maxFailures: 3 }], clock.now(), 60_000);
    first.close();

    const database = openSqliteDatabase(data.dir, clock);
    const revoked = new SqliteRevokedSessions(database, clock);
    const locks = new SqliteLoginAttempts(database, clock);
    await revoked.revoke('revoked-now', clock.now() + HOUR);
    database.db.close();
    try {
      expect(await revoked.isRevoked('revoked-before')).toBe(true);
      expect(await revoked.isRevoked('revoked-now')).toBe(true);
      expect(await revoked.isRevoked('never')).toBe(false);
      expect(await locks.lockedUntil('account:mallory', clock.now())).toBe(clock.now() + 60_000);
      expect(await locks.lockedUntil('account:alice', clock.now())).toBe(0);
    } finally {
      database.close();
      data.remove();
    }
  });
});

describe('SqliteDatabase start-up errors', () => {
  const clock = new FixedClock(Date.UTC(2026, 5, 1));

  it('refuses a data directory that cannot be created, at once (a path under /proc once hung Node 20 mkdir -p)', () => {
    expect(() => SqliteDatabase.open('/proc/portcullis-test/data', { driver: optionalModules.betterSqlite3(), logger: silent, clock })).toThrow(
      /^cannot create the data directory \/proc\/portcullis-test\/data \((ENOENT|EACCES|EPERM)\); set DATA_DIR to a directory this user may write$/,
    );
  });

  it('refuses a data directory below a file', () => {
    const data = tempDataDir();
    try {
      writeFileSync(join(data.dir, 'file'), 'x');
      expect(() => SqliteDatabase.open(join(data.dir, 'file', 'data'), { driver: optionalModules.betterSqlite3(), logger: silent, clock })).toThrow(
        /^cannot create the data directory .* \(ENOTDIR\)/,
      );
    } finally {
      data.remove();
    }
  });
});
