import type { Clock } from '../../../application/ports/clock';
import type { AttemptLimit, AttemptReservation, LoginAttempts } from '../../../application/password/login-attempts';
import { CHANGES_CHANNEL, type PostgresDatabase } from './postgres-database';
import { BoundedExpiringMap } from '../bounded-map';

interface Row {
  key: string;
  failures: number;
  locked_until: string;
  until: string;
}

/**
 * Failure counters and locks in PostgreSQL, shared by every replica; a lock survives restarts.
 *
 * `reserve` is one transaction: it makes sure a row exists for every key (so there is something
 * to lock), takes the rows' locks in key order (SELECT ... FOR UPDATE; the same order everywhere,
 * so two reservations never deadlock), decides, writes and commits. A reservation on another
 * replica for the same key waits for this one to commit and then reads its count: however many
 * guesses arrive at once, on however many replicas, at most `maxFailures` are granted per window.
 *
 * `lockedUntil` (asked on every HTTP Basic forward-auth request) answers from a memory mirror of
 * the locks: loaded at (re)connection, updated after each commit here and by NOTIFY from the
 * other replicas. It is only a shortcut: the transaction in `reserve` checks the database itself.
 * No `noLockAfter`: another replica may set a lock at any moment, so no lock read may be skipped.
 */
export class PostgresLoginAttempts implements LoginAttempts {
  private locks: BoundedExpiringMap<number>;

  constructor(
    private readonly database: PostgresDatabase,
    private readonly clock: Clock,
    private readonly capacity = 1_000_000,
  ) {
    this.locks = new BoundedExpiringMap(capacity);
    database.onChange('l', (key, until) => this.mirror(key, until));
    database.onConnect(async (query) => {
      // Rebuilt, not merged: a lock lifted while this replica was not listening must go too.
      const fresh = new BoundedExpiringMap<number>(this.capacity);
      const rows = await query<{ key: string; locked_until: string }>('SELECT key, locked_until FROM login_attempts WHERE locked_until > $1', [
        this.clock.now(),
      ]);
      for (const row of rows) fresh.set(row.key, Number(row.locked_until), Number(row.locked_until));
      this.locks = fresh;
    });
    database.onSweep((at) => this.locks.sweep(at));
  }

  async lockedUntil(key: string, nowMs: number): Promise<number> {
    if (this.locks.size === 0) return 0;
    const until = this.locks.get(key, nowMs);
    return until !== undefined && until > nowMs ? until : 0;
  }

  async reserve(limits: readonly AttemptLimit[], nowMs: number, lockMs: number): Promise<AttemptReservation> {
    const counted = limits.filter((l) => l.maxFailures >= 1);
    // A known lock is refused from memory, so a flood against a locked account costs no transaction.
    let known = 0;
    for (const { key } of counted) known = Math.max(known, await this.lockedUntil(key, nowMs));
    if (known > 0) return { granted: false, lockedUntil: known };
    if (counted.length === 0) return { granted: true, locksUntil: limits.map(() => 0) };
    const keys = [...new Set(counted.map((l) => l.key))].sort();
    const reservation = await this.database.transaction(async (query): Promise<AttemptReservation> => {
      await query(
        'INSERT INTO login_attempts (key, failures, locked_until, until) SELECT k, 0, 0, 0 FROM unnest($1::text[]) AS k ORDER BY k ON CONFLICT (key) DO NOTHING',
        [keys],
      );
      const rows = await query<Row>('SELECT key, failures, locked_until, until FROM login_attempts WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE', [
        keys,
      ]);
      // A row whose window has ended counts as absent.
      const live = new Map(rows.filter((r) => Number(r.until) > nowMs).map((r) => [r.key, r]));
      const locked = Math.max(0, ...[...live.values()].map((r) => (Number(r.locked_until) > nowMs ? Number(r.locked_until) : 0)));
      if (locked > 0) return { granted: false, lockedUntil: locked };
      const failures = new Map<string, number>();
      const locksUntil = limits.map(({ key, maxFailures }) => {
        if (maxFailures < 1) return 0;
        const count = (failures.get(key) ?? live.get(key)?.failures ?? 0) + 1;
        failures.set(key, count);
        return count >= maxFailures ? nowMs + lockMs : 0;
      });
      for (const key of keys) {
        const lock = Math.max(0, ...limits.map((l, i) => (l.key === key ? locksUntil[i] : 0)));
        // The window slides: it ends lockMs after this failure, or with the lock.
        await query('UPDATE login_attempts SET failures = $2, locked_until = $3, until = $4 WHERE key = $1', [
          key,
          failures.get(key),
          lock,
          Math.max(lock, nowMs + lockMs),
        ]);
        if (lock > 0) await query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, `l ${key} ${lock}`]);
      }
      return { granted: true, locksUntil };
    });
    if (reservation.granted) {
      limits.forEach(({ key }, i) => {
        if (reservation.locksUntil[i] > nowMs) this.mirror(key, reservation.locksUntil[i]);
      });
    }
    return reservation;
  }

  async refund(limits: readonly AttemptLimit[], nowMs: number): Promise<void> {
    const counted = limits.filter((l) => l.maxFailures >= 1);
    if (counted.length === 0) return;
    const keys = [...new Set(counted.map((l) => l.key))].sort();
    const lifted = await this.database.transaction(async (query) => {
      const rows = await query<Row>('SELECT key, failures, locked_until, until FROM login_attempts WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE', [
        keys,
      ]);
      const out: string[] = [];
      for (const row of rows) {
        if (Number(row.until) <= nowMs) continue;
        const limit = Math.min(...counted.filter((l) => l.key === row.key).map((l) => l.maxFailures));
        const failures = Math.max(0, row.failures - 1);
        // A lock is only ever set by the reservation that reached the limit; falling back under it
        // means one of the guesses it counted was not a failure after all.
        const locked = failures < limit ? 0 : Number(row.locked_until);
        await query('UPDATE login_attempts SET failures = $2, locked_until = $3 WHERE key = $1', [row.key, failures, locked]);
        if (locked === 0 && Number(row.locked_until) > 0) await query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, `l ${row.key} 0`]);
        if (locked === 0) out.push(row.key);
      }
      return out;
    });
    for (const key of lifted) this.locks.delete(key);
  }

  async reset(key: string): Promise<void> {
    const rows = await this.database.query<{ locked_until: string }>(
      `WITH gone AS (DELETE FROM login_attempts WHERE key = $1 RETURNING locked_until)
       SELECT locked_until, CASE WHEN locked_until > 0 THEN pg_notify($2, 'l ' || $1 || ' 0') END AS told FROM gone`,
      [key, CHANGES_CHANNEL],
    );
    if (rows.length > 0) this.locks.delete(key);
  }

  private mirror(key: string, until: number): void {
    if (until > this.clock.now()) this.locks.set(key, until, until);
    else this.locks.delete(key);
  }
}
