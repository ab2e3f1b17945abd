import type { Clock } from '../../../application/ports/clock';
import type { RevokedSessions } from '../../../application/ports/revoked-sessions';
import type { Database, SqliteDatabase, Statement } from './sqlite-database';
import { BoundedExpiringMap } from '../bounded-map';

/**
 * Revoked sessions on disk, answered from memory.
 *
 * Forward auth asks `isRevoked` on every request with a cookie: it reads a local map that holds
 * every revocation (loaded from the file at start, added to after each committed write), never
 * the disk. This gateway is the only writer of its database (SqliteDatabase holds a lock), so
 * the map is complete. A revocation lives until its session would have expired; the periodic
 * sweep deletes it then. See docs/adr/0018-embedded-sqlite-store.md.
 */
export class SqliteRevokedSessions implements RevokedSessions {
  private readonly known: BoundedExpiringMap<true>;
  private insert!: Statement<[string, number]>;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
    capacity = 1_000_000,
  ) {
    this.known = new BoundedExpiringMap(capacity);
    // The statement and the mirror once the file is open (gateway.start()), not at construction.
    database.whenOpen((db) => this.load(db));
    database.onSweep((at) => this.known.sweep(at));
  }

  private load(db: Database): void {
    // A later expiry wins: revoking twice never shortens a revocation.
    this.insert = db.prepare('INSERT INTO revoked_sessions (id, until) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET until = max(until, excluded.until)');
    const now = this.clock.now();
    const rows = db.prepare('SELECT id, until FROM revoked_sessions WHERE until > ? ORDER BY until').iterate(now) as IterableIterator<{
      id: string;
      until: number;
    }>;
    for (const row of rows) this.known.set(row.id, true, row.until);
  }

  /**
   * Resolves once the revocation is committed (and only then honoured from memory): a logout
   * that answers 200 has survived a crash. Rejects with StateStoreUnavailableError when the
   * write fails, so the logout answers 503 and the person can try again.
   */
  async revoke(id: string, untilMs: number): Promise<void> {
    if (untilMs <= this.clock.now()) return;
    await this.database.write(() => this.insert.run(id, untilMs));
    const kept = this.known.expiryOf(id, this.clock.now()) ?? 0;
    this.known.set(id, true, Math.max(kept, untilMs));
  }

  /** Answered at once, from memory: forward auth asks on every request with a cookie. */
  isRevoked(id: string): boolean {
    return this.known.size !== 0 && this.known.get(id, this.clock.now()) === true;
  }
}
