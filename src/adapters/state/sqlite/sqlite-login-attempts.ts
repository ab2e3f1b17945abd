import type { Clock } from '../../../application/ports/clock';
import type { AttemptLimit, AttemptReservation, LoginAttempts } from '../../../application/password/login-attempts';
import type { Database, SqliteDatabase, Statement } from './sqlite-database';
import { BoundedExpiringMap } from '../bounded-map';

interface Row {
  failures: number;
  locked_until: number;
  until: number;
}

/**
 * Failure counters and locks on disk; a lock survives a restart.
 *
 * `reserve` is a read, a decision and a write in one transaction, committed before it resolves:
 * a guess is counted on disk before it is checked, so an answered failure has been counted, and
 * concurrent reservations cannot all pass the limit (each runs whole before the next). The locks are also kept in memory
 * (loaded at start, updated after each commit): HTTP Basic asks `lockedUntil` on every forward-auth
 * request, which therefore never reads the disk. This gateway is the only writer of its database,
 * so the memory copy is complete.
 */
export class SqliteLoginAttempts implements LoginAttempts {
  private readonly locks: BoundedExpiringMap<number>;
  // The latest lock end loaded or set: the memory copy is complete, so no lock outlasts it (lifting
  // a lock early leaves it alone; it only has to be late enough). See `noLockAfter`.
  private lockHorizon = 0;
  private select!: Statement<[string], Row>;
  private upsert!: Statement<[{ key: string; failures: number; locked: number; until: number }]>;
  private remove!: Statement<[string]>;
  private exists!: Statement<[string], { one: number }>;

  constructor(
    private readonly database: SqliteDatabase,
    clock: Clock,
    capacity = 1_000_000,
  ) {
    this.locks = new BoundedExpiringMap(capacity);
    // Statements and the lock mirror once the file is open (gateway.start()), not at construction.
    database.whenOpen((db) => this.load(db, clock));
    database.onSweep((at) => this.locks.sweep(at));
  }

  private load(db: Database, clock: Clock): void {
    this.select = db.prepare('SELECT failures, locked_until, until FROM login_attempts WHERE key = ?');
    this.upsert = db.prepare(
      `INSERT INTO login_attempts (key, failures, locked_until, until) VALUES (@key, @failures, @locked, @until)
       ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until, until = excluded.until`,
    );
    this.remove = db.prepare('DELETE FROM login_attempts WHERE key = ?');
    this.exists = db.prepare('SELECT 1 AS one FROM login_attempts WHERE key = ?');
    const rows = db.prepare('SELECT key, locked_until FROM login_attempts WHERE locked_until > ?').iterate(clock.now()) as IterableIterator<{
      key: string;
      locked_until: number;
    }>;
    for (const row of rows) {
      this.locks.set(row.key, row.locked_until, row.locked_until);
      this.lockHorizon = Math.max(this.lockHorizon, row.locked_until);
    }
  }

  async lockedUntil(key: string, nowMs: number): Promise<number> {
    if (this.locks.size === 0) return 0;
    const until = this.locks.get(key, nowMs);
    return until !== undefined && until > nowMs ? until : 0;
  }

  async reserve(limits: readonly AttemptLimit[], nowMs: number, lockMs: number): Promise<AttemptReservation> {
    const counted = limits.filter((l) => l.maxFailures >= 1);
    // A lock is refused from memory (complete: this gateway is the database's only writer), so a
    // flood against a locked account costs no transaction and no commit.
    let lockedUntil = 0;
    for (const { key } of counted) lockedUntil = Math.max(lockedUntil, await this.lockedUntil(key, nowMs));
    if (lockedUntil > 0) return { granted: false, lockedUntil };
    const reservation = await this.database.write((): AttemptReservation => {
      // 1. read every key's window (a row whose window has ended counts as absent); refuse when one is locked
      const rows = limits.map(({ key, maxFailures }) => {
        if (maxFailures < 1) return undefined;
        const row = this.select.get(key);
        return row !== undefined && row.until > nowMs ? row : undefined;
      });
      const locked = Math.max(0, ...rows.map((row) => (row !== undefined && row.locked_until > nowMs ? row.locked_until : 0)));
      if (locked > 0) return { granted: false, lockedUntil: locked };
      // 2. count one failure against every key; the one that reaches the limit locks it
      const locksUntil = limits.map(({ key, maxFailures }, i) => {
        if (maxFailures < 1) return 0;
        const row = rows[i];
        const failures = (row?.failures ?? 0) + 1;
        const lock = failures >= maxFailures ? nowMs + lockMs : 0;
        // 3. write; the window slides: it ends lockMs after this failure, or with the lock
        this.upsert.run({ key, failures, locked: lock, until: Math.max(lock, nowMs + lockMs) });
        return lock;
      });
      return { granted: true, locksUntil };
    });
    if (reservation.granted) {
      limits.forEach(({ key }, i) => {
        const until = reservation.locksUntil[i];
        if (until > nowMs) {
          this.locks.set(key, until, until);
          this.lockHorizon = Math.max(this.lockHorizon, until);
        }
      });
    }
    return reservation;
  }

  async refund(limits: readonly AttemptLimit[], nowMs: number): Promise<void> {
    const lifted = await this.database.write(() =>
      limits.map(({ key, maxFailures }) => {
        if (maxFailures < 1) return false;
        const row = this.select.get(key);
        if (row === undefined || row.until <= nowMs) return false;
        const failures = Math.max(0, row.failures - 1);
        // A lock is only ever set by the reservation that reached the limit; falling back under it
        // means one of the guesses it counted was not a failure after all.
        const locked = failures < maxFailures ? 0 : row.locked_until;
        this.upsert.run({ key, failures, locked, until: row.until });
        return locked === 0;
      }),
    );
    limits.forEach(({ key }, i) => {
      if (lifted[i]) this.locks.delete(key);
    });
  }

  /** Every lock is in memory (this gateway is the only writer), so every cached Basic request past this time skips the lock read. */
  readonly noLockAfter = (): number => this.lockHorizon;

  async reset(key: string): Promise<void> {
    // Most successful logins follow no failure: nothing to delete, so no commit (and no fsync) to wait for.
    if (this.exists.get(key) !== undefined) await this.database.write(() => this.remove.run(key));
    this.locks.delete(key);
  }
}
