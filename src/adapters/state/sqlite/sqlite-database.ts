import { closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { StateStoreUnavailableError } from '../../../application/ports/state-store-unavailable';
import type { Clock } from '../../../application/ports/clock';
import type { Logger } from '../../system/logger';
import { EXPIRING_TABLES, MIGRATIONS, type Migration } from './migrations';

/**
 * The better-sqlite3 driver. Handed in by composition (optional-modules.ts), which loads it only
 * when a database is opened: a gateway on Redis or in memory (tests, library use) never carries
 * the native module.
 */
export type SqliteDriver = typeof BetterSqlite3;

export type Database = BetterSqlite3.Database;
export type Statement<P extends unknown[] = unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;

export const DATABASE_FILE = 'portcullis.db';
/** Held (an exclusive SQLite lock) for as long as a gateway has the database open. */
export const GATEWAY_LOCK_FILE = 'portcullis.lock';

/** The database cannot be used at start-up: the message is for the operator, one line, no secret. */
export class DatabaseStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseStartError';
  }
}

/** The embedded database is held by another process (a running gateway): a command can say what to do instead. */
export class DatabaseInUseError extends DatabaseStartError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseInUseError';
  }
}

export interface SqliteDatabaseOptions {
  /** better-sqlite3, handed in by composition. */
  readonly driver: SqliteDriver;
  readonly logger: Logger;
  readonly clock: Clock;
  /** How often expired rows are deleted (and the memory mirrors swept). */
  readonly sweepIntervalMs?: number;
  /** How many expired rows one sweep step deletes per table, so one step never blocks for long. */
  readonly sweepChunk?: number;
  /** Schema steps; tests pass their own to check what an unknown (newer) schema does. */
  readonly migrations?: readonly Migration[];
}

type Sweeper = (nowMs: number) => void;

interface PendingWrite {
  readonly run: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (e: unknown) => void;
}

/** The SQLite error codes that mean "the disk cannot take this now": a 503, not a bug. */
function isSqliteError(e: unknown): e is Error & { code: string } {
  const code = (e as { code?: unknown } | null)?.code;
  return e instanceof Error && typeof code === 'string' && code.startsWith('SQLITE_');
}

export function reasonOf(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' ? code : e instanceof Error ? e.name : 'unknown';
}

/**
 * The gateway's embedded database: one file (`portcullis.db` in the data directory), one
 * connection, shared by every SQLite adapter. Each adapter owns its tables (see migrations.ts) and
 * prepares its own statements on {@link db}.
 *
 * - Start-up: the directory is created owner-only (0700), the file owner-only (0600; SQLite gives
 *   its -wal and -shm files the same mode), WAL mode, then missing schema steps run. A file from a
 *   newer Portcullis, a corrupt file, a directory that cannot be written or a database already
 *   held by another gateway stops start-up with one {@link DatabaseStartError}.
 * - Writes go through {@link write}: every write asked for in one turn of the event loop is
 *   committed in one transaction (one fsync, `synchronous=FULL`), and each promise resolves only
 *   after that commit. So an answer that depends on a write (a logout, a counted failure) is never
 *   sent before the write is on disk, and a burst of logouts shares fsyncs.
 * - A write that fails for the disk's sake (full, I/O error) rejects with
 *   StateStoreUnavailableError (the request answers 503); the outage is logged once when it starts
 *   and once when a later write succeeds again.
 */
export class SqliteDatabase {
  readonly name = 'sqlite';
  readonly dir: string;
  readonly path: string;
  private opened: { readonly db: Database; readonly lock: Database } | null = null;
  private readonly openers: Array<(db: Database) => void> = [];
  private queue: PendingWrite[] = [];
  private flushScheduled = false;
  private readonly sweepers: Sweeper[] = [];
  private sweepTimer: NodeJS.Timeout | null = null;
  private up = true;
  private outages = 0;
  private closed = false;

  private constructor(
    dir: string,
    private readonly options: SqliteDatabaseOptions,
  ) {
    this.dir = resolve(dir);
    this.path = join(this.dir, DATABASE_FILE);
  }

  /**
   * The database in `dir`, not opened yet: no file, no directory, no timer until {@link start}
   * (composition builds it, `gateway.start()` opens it).
   */
  static create(dir: string, options: SqliteDatabaseOptions): SqliteDatabase {
    return new SqliteDatabase(dir, options);
  }

  /** Opens (creating when absent) `portcullis.db` in `dir` at once. Throws {@link DatabaseStartError}. */
  static open(dir: string, options: SqliteDatabaseOptions): SqliteDatabase {
    const database = new SqliteDatabase(dir, options);
    database.start();
    return database;
  }

  /** The open connection; only after {@link start} (adapters reach it through {@link whenOpen}). */
  get db(): Database {
    if (this.opened === null) throw new Error('the database is not open yet: call start() first');
    return this.opened.db;
  }

  /** Whether {@link start} has opened the file. */
  get isOpen(): boolean {
    return this.opened !== null;
  }

  /**
   * Runs `prepare` with the open connection: now when already open, else right after {@link start}
   * has opened and migrated it (in registration order). Adapters prepare their statements and load
   * their memory mirrors here, so constructing them touches no file.
   */
  whenOpen(prepare: (db: Database) => void): void {
    if (this.opened !== null) prepare(this.opened.db);
    else this.openers.push(prepare);
  }

  /**
   * Opens (creating when absent) the file, runs the missing schema steps, lets the adapters load
   * their mirrors and starts the sweep. Throws {@link DatabaseStartError} (the file is then left
   * closed). Idempotent.
   */
  start(): void {
    if (this.opened !== null) return;
    if (this.closed) throw new DatabaseStartError(`the database in ${this.dir} is closed`);
    const absolute = this.dir;
    prepareDirectory(absolute);
    const file = this.path;
    // Created 0600 here; a file copied in by hand may be wider. Said once, not changed behind the operator's back.
    if ((statSync(file).mode & 0o077) !== 0) {
      this.options.logger.warn('the database file is readable by other users: chmod 600 it', { database: file });
    }
    const lock = takeGatewayLock(absolute, this.options.driver);
    let db: Database | null = null;
    try {
      db = openDatabase(file, this.options.driver);
      migrate(db, this.options.migrations ?? MIGRATIONS, absolute);
      this.opened = { db, lock };
      for (const prepare of this.openers.splice(0)) prepare(db);
    } catch (e) {
      this.opened = null;
      db?.close();
      lock.close();
      throw e;
    }
    const interval = this.options.sweepIntervalMs ?? 60_000;
    this.sweepTimer = setInterval(() => void this.sweep().catch(() => undefined), interval);
    // The sweep must never keep a process alive that has nothing else to do.
    this.sweepTimer.unref();
  }

  /**
   * Runs `change` inside the next group transaction; resolves its result once that transaction is
   * committed. `change` runs synchronously and must only touch the database (memory mirrors are
   * updated by the caller after the promise resolves, so they never hold an uncommitted write).
   * Rejects with StateStoreUnavailableError when the commit fails.
   */
  write<T>(change: () => T): Promise<T> {
    if (this.closed || this.opened === null) return Promise.reject(new StateStoreUnavailableError('sqlite'));
    return new Promise<T>((resolvePromise, reject) => {
      this.queue.push({ run: change, resolve: resolvePromise as (v: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Registers work for the periodic sweep (deleting an adapter's expired rows, sweeping its mirror). */
  onSweep(sweeper: Sweeper): void {
    this.sweepers.push(sweeper);
  }

  /** Deletes expired rows now (the timer calls this; tests and shutdown may too). */
  async sweep(): Promise<void> {
    const chunk = this.options.sweepChunk ?? 5_000;
    const now = this.options.clock.now();
    for (const { table, key } of EXPIRING_TABLES) {
      const del = this.db.prepare(`DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE until <= ? LIMIT ?)`);
      // Small steps, each its own commit, so a large backlog never blocks the event loop for long.
      for (;;) {
        const deleted = await this.write(() => del.run(now, chunk).changes);
        if (deleted < chunk) break;
      }
    }
    for (const sweeper of this.sweepers) sweeper(now);
  }

  /** Whether the last write succeeded (for the `portcullis_store_up` gauge). */
  isUp(): boolean {
    return this.up;
  }

  /** How many write outages (disk full, I/O errors) this gateway has recovered from or is in. */
  reconnectCount(): number {
    return this.outages;
  }

  /** Commits what is queued, stops the sweep, checkpoints the WAL and closes. Idempotent. */
  close(): void {
    if (this.closed) return;
    if (this.opened === null) {
      // Never started (or its start failed): nothing is open.
      this.closed = true;
      return;
    }
    this.flush();
    this.closed = true;
    if (this.sweepTimer !== null) clearInterval(this.sweepTimer);
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // Closing anyway; the WAL is replayed at the next start.
    }
    this.opened.db.close();
    this.opened.lock.close();
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.db
        .transaction(() => {
          for (const item of batch) {
            // A savepoint per change: one change that throws a plain bug does not undo the others.
            try {
              results.push({ ok: true, value: this.db.transaction(item.run)() });
            } catch (e) {
              if (isSqliteError(e)) throw e;
              results.push({ ok: false, error: e });
            }
          }
        })
        .immediate();
    } catch (e) {
      this.markDown(e);
      const unavailable = new StateStoreUnavailableError('sqlite', { cause: e });
      for (const item of batch) item.reject(unavailable);
      return;
    }
    this.markUp();
    batch.forEach((item, i) => {
      const r = results[i];
      if (r.ok) item.resolve(r.value);
      else item.reject(r.error);
    });
  }

  private markDown(e: unknown): void {
    if (!this.up) return;
    this.up = false;
    this.outages += 1;
    this.options.logger.error('database write failed: requests that need a durable write answer 503 until it works again', {
      database: this.path,
      reason: reasonOf(e),
    });
  }

  private markUp(): void {
    if (this.up) return;
    this.up = true;
    this.options.logger.info('database writes work again', { database: this.path });
  }
}

/** Creates the data directory owner-only when absent, and checks that it is a writable directory. */
function prepareDirectory(dir: string): void {
  try {
    makeDirectory(dir);
  } catch (e) {
    throw new DatabaseStartError(`cannot create the data directory ${dir} (${reasonOf(e)}); set DATA_DIR to a directory this user may write`, { cause: e });
  }
  if (!statSync(dir).isDirectory()) throw new DatabaseStartError(`DATA_DIR ${dir} is not a directory`);
  const probe = join(dir, DATABASE_FILE);
  try {
    // Created owner-only before SQLite opens it: SQLite would use the umask (often world-readable).
    if (!existsSync(probe)) closeSync(openSync(probe, 'wx', 0o600));
    closeSync(openSync(probe, 'r+'));
  } catch (e) {
    throw new DatabaseStartError(`the data directory ${dir} is not writable (${reasonOf(e)}); set DATA_DIR to a directory this user may write`, { cause: e });
  }
}

/**
 * `mkdir -p` with mode 0700. Not `mkdirSync(dir, { recursive: true })`: on Node 20 that never
 * returns for a path under /proc (it retries the ENOENT forever), which would hang start-up.
 */
function makeDirectory(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) makeDirectory(parent);
  mkdirSync(dir, { mode: 0o700 });
}

/**
 * One gateway per data directory: its memory mirrors are only complete when it is the only writer.
 * An exclusive lock on a small file of its own (not on portcullis.db, which `portcullis backup`
 * must still be able to read); the kernel drops it when the process ends, even by kill -9.
 */
export function takeGatewayLock(dir: string, Driver: SqliteDriver): Database {
  const path = join(dir, GATEWAY_LOCK_FILE);
  let lock: Database | null = null;
  try {
    if (!existsSync(path)) closeSync(openSync(path, 'wx', 0o600));
    lock = new Driver(path, { timeout: 0 });
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS held (at INTEGER); COMMIT;');
    return lock;
  } catch (e) {
    lock?.close();
    if (reasonOf(e) === 'SQLITE_BUSY') {
      throw new DatabaseInUseError(
        `the database in ${dir} is in use by another Portcullis process; one gateway per DATA_DIR (several replicas share DATABASE_URL or REDIS_URL instead)`,
        { cause: e },
      );
    }
    throw new DatabaseStartError(`cannot lock the database in ${dir} (${reasonOf(e)})`, { cause: e });
  }
}

function openDatabase(path: string, Driver: SqliteDriver): Database {
  let db: Database | null = null;
  try {
    // A write waits at most this long for a lock; writes run on the event loop, so keep it short.
    db = new Driver(path, { timeout: 500 });
    // Reading the schema is the first real read: a file that is not a database fails here.
    db.pragma('schema_version');
    db.pragma('journal_mode = WAL');
    // FULL: a commit is on disk (the WAL fsynced) before the answer that depends on it, power cut included.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw Object.assign(new Error('quick_check failed'), { code: 'SQLITE_CORRUPT' });
    return db;
  } catch (e) {
    db?.close();
    const reason = reasonOf(e);
    if (reason === 'SQLITE_NOTADB' || reason.startsWith('SQLITE_CORRUPT')) {
      throw new DatabaseStartError(`${path} is not a readable Portcullis database (${reason}); restore a backup or move the file away`, { cause: e });
    }
    if (reason === 'SQLITE_BUSY' || reason.startsWith('SQLITE_LOCKED')) {
      throw new DatabaseStartError(`${path} is locked by another process (${reason})`, { cause: e });
    }
    throw new DatabaseStartError(`cannot open ${path} (${reason})`, { cause: e });
  }
}

/** Runs the missing schema steps; refuses a file written by a newer Portcullis. */
function migrate(db: Database, migrations: readonly Migration[], dir: string): void {
  const latest = migrations.length === 0 ? 0 : migrations[migrations.length - 1].version;
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > latest) {
    throw new DatabaseStartError(
      `the database in ${dir} has schema version ${current}, newer than this Portcullis knows (${latest}): run the newer Portcullis, or restore a backup made by this one`,
    );
  }
  for (const step of migrations) {
    if (step.version <= current) continue;
    try {
      db.transaction(() => {
        db.exec(step.sql);
        db.pragma(`user_version = ${step.version}`);
      }).immediate();
    } catch (e) {
      throw new DatabaseStartError(`cannot update the database in ${dir} to schema version ${step.version} (${reasonOf(e)})`, { cause: e });
    }
  }
}
