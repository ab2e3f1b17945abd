import type { Clock } from '../../application/ports/clock';
import type { LoginAttempts } from '../../application/ports/login-attempts';
import type { SqliteDatabase, Statement } from '../sqlite/sqlite-database';
import { BoundedExpiringMap } from './bounded-map';

interface Row {
  failures: number;
  locked_until: number;
  until: number;
}

/**
 * Failure counters and locks on disk; a lock survives a restart.
 *
 * `recordFailure` is a read, a decision and a write in one transaction, committed before it
 * resolves: a failure that was answered has been counted. The locks are also kept in memory
 * (loaded at start, updated after each commit): HTTP Basic asks `lockedUntil` on every forward-auth
 * request, which therefore never reads the disk. This gateway is the only writer of its database,
 * so the memory copy is complete.
 */
export class SqliteLoginAttempts implements LoginAttempts {
  private readonly locks: BoundedExpiringMap<number>;
  private readonly select: Statement<[string], Row>;
  private readonly upsert: Statement<[{ key: string; failures: number; locked: number; until: number }]>;
  private readonly remove: Statement<[string]>;
  private readonly exists: Statement<[string], { one: number }>;

  constructor(private readonly database: SqliteDatabase, clock: Clock, capacity = 1_000_000) {
    const { db } = database;
    this.locks = new BoundedExpiringMap(capacity);
    this.select = db.prepare('SELECT failures, locked_until, until FROM login_attempts WHERE key = ?');
    this.upsert = db.prepare(
      `INSERT INTO login_attempts (key, failures, locked_until, until) VALUES (@key, @failures, @locked, @until)
       ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until, until = excluded.until`,
    );
    this.remove = db.prepare('DELETE FROM login_attempts WHERE key = ?');
    this.exists = db.prepare('SELECT 1 AS one FROM login_attempts WHERE key = ?');
    const rows = db.prepare('SELECT key, locked_until FROM login_attempts WHERE locked_until > ?').iterate(clock.now()) as IterableIterator<{ key: string; locked_until: number }>;
    for (const row of rows) this.locks.set(row.key, row.locked_until, row.locked_until);
    database.onSweep((at) => this.locks.sweep(at));
  }

  async lockedUntil(key: string, nowMs: number): Promise<number> {
    if (this.locks.size === 0) return 0;
    const until = this.locks.get(key, nowMs);
    return until !== undefined && until > nowMs ? until : 0;
  }

  async recordFailure(key: string, nowMs: number, maxFailures: number, lockMs: number): Promise<number> {
    if (maxFailures <= 0) return 0;
    const lockedUntil = await this.database.write(() => {
      // 1. read the key's window (a row whose window has ended counts as absent)
      const row = this.select.get(key);
      const live = row !== undefined && row.until > nowMs;
      let failures = (live ? row.failures : 0) + 1;
      let locked = live ? row.locked_until : 0;
      // 2. count, and lock on the failure that reaches the limit (a fresh count starts then)
      if (failures >= maxFailures) {
        locked = Math.max(locked, nowMs + lockMs);
        failures = 0;
      }
      // 3. write; the window slides: it ends lockMs after this failure, or with the lock
      this.upsert.run({ key, failures, locked, until: Math.max(locked, nowMs + lockMs) });
      return locked;
    });
    if (lockedUntil > nowMs) this.locks.set(key, lockedUntil, lockedUntil);
    return lockedUntil > nowMs ? lockedUntil : 0;
  }

  async reset(key: string): Promise<void> {
    // Most successful logins follow no failure: nothing to delete, so no commit (and no fsync) to wait for.
    if (this.exists.get(key) !== undefined) await this.database.write(() => this.remove.run(key));
    this.locks.delete(key);
  }
}
