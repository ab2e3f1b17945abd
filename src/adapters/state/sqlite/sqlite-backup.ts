import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync, copyFileSync, chmodSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DATABASE_FILE, reasonOf, takeGatewayLock, type Database, type SqliteDriver } from './sqlite-database';
import { MIGRATIONS } from './migrations';

/** A backup or restore that cannot be done; the message is for the operator (one line, no secret). */
export class DatabaseToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseToolError';
  }
}

/**
 * Copies the database in `dataDir` to `file` while a gateway may be running: `VACUUM INTO` reads
 * one consistent snapshot (a WAL reader never blocks the gateway's writes, nor is blocked by
 * them) and writes a compact copy. The copy is created owner-only. Resolves a summary line.
 */
export function backupDatabase(dataDir: string, file: string, Driver: SqliteDriver): string {
  const source = join(resolve(dataDir), DATABASE_FILE);
  const target = resolve(file);
  if (!existsSync(source)) throw new DatabaseToolError(`there is no database in ${resolve(dataDir)} (set DATA_DIR or --data-dir)`);
  if (existsSync(target)) throw new DatabaseToolError(`${target} already exists; give the name of a new file`);
  let db: Database | null = null;
  try {
    db = new Driver(source, { readonly: true, fileMustExist: true, timeout: 5_000 });
    // The copy holds sessions' revocations: owner-only, like the database itself.
    closeSync(openSync(target, 'wx', 0o600));
    db.prepare('VACUUM INTO ?').run(target);
  } catch (e) {
    rmSync(target, { force: true });
    throw new DatabaseToolError(`cannot back up ${source} (${reasonOf(e)})`);
  } finally {
    db?.close();
  }
  const version = checkBackup(target, Driver);
  return `backed up ${source} to ${target} (${statSync(target).size} bytes, schema version ${version})`;
}

/**
 * Puts the backup `file` in place of the database in `dataDir`. The gateway must be stopped (its
 * lock is taken first). The file is checked before anything is touched; the database it replaces
 * is kept next to it as `portcullis.db.replaced-<time>`. Resolves a summary line.
 */
export function restoreDatabase(dataDir: string, file: string, nowMs: number, Driver: SqliteDriver): string {
  const dir = resolve(dataDir);
  const source = resolve(file);
  if (!existsSync(source)) throw new DatabaseToolError(`${source} does not exist`);
  const version = checkBackup(source, Driver);
  if (!existsSync(dir)) throw new DatabaseToolError(`there is no data directory ${dir} (set DATA_DIR or --data-dir; start the gateway once to create it)`);
  let lock: Database;
  try {
    lock = takeGatewayLock(dir, Driver);
  } catch (e) {
    throw new DatabaseToolError(`${e instanceof Error ? e.message : 'cannot lock the database'}: stop the gateway before a restore`);
  }
  try {
    const target = join(dir, DATABASE_FILE);
    let replaced: string | null = null;
    if (existsSync(target)) {
      settle(target, Driver);
      replaced = `${target}.replaced-${new Date(nowMs).toISOString().replace(/[:.]/g, '-')}`;
      renameSync(target, replaced);
      for (const suffix of ['-wal', '-shm']) if (existsSync(`${target}${suffix}`)) renameSync(`${target}${suffix}`, `${replaced}${suffix}`);
    }
    const incoming = `${target}.restoring`;
    copyFileSync(source, incoming);
    chmodSync(incoming, 0o600);
    syncFile(incoming);
    renameSync(incoming, target);
    syncFile(dirname(target));
    return `restored ${source} to ${target} (schema version ${version})${replaced === null ? '' : `; the database it replaced is ${replaced}`}`;
  } finally {
    lock.close();
  }
}

/** A readable Portcullis database of a schema this code knows; resolves its schema version. */
function checkBackup(file: string, Driver: SqliteDriver): number {
  let db: Database | null = null;
  try {
    db = new Driver(file, { readonly: true, fileMustExist: true });
    if (db.pragma('quick_check', { simple: true }) !== 'ok') throw Object.assign(new Error('quick_check'), { code: 'SQLITE_CORRUPT' });
    const version = db.pragma('user_version', { simple: true }) as number;
    const latest = MIGRATIONS[MIGRATIONS.length - 1].version;
    if (version < 1) throw new DatabaseToolError(`${file} is not a Portcullis database`);
    if (version > latest) throw new DatabaseToolError(`${file} has schema version ${version}, newer than this Portcullis knows (${latest})`);
    return version;
  } catch (e) {
    if (e instanceof DatabaseToolError) throw e;
    throw new DatabaseToolError(`${file} is not a readable Portcullis database (${reasonOf(e)})`);
  } finally {
    db?.close();
  }
}

/** Folds a WAL left by a gateway that was killed into the file, so moving the file moves all of it. */
function settle(path: string, Driver: SqliteDriver): void {
  try {
    const db = new Driver(path, { fileMustExist: true });
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
  } catch {
    // An unreadable file is moved aside as it is, with its -wal and -shm.
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
