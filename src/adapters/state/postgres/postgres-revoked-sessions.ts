import type { Clock } from '../../../application/ports/clock';
import type { ReadinessCheck } from '../../../application/readiness/readiness-check';
import type { RevokedSessions } from '../../../application/ports/revoked-sessions';
import { StateStoreUnavailableError } from '../../../application/ports/state-store-unavailable';
import { CHANGES_CHANNEL, type PostgresDatabase } from './postgres-database';
import { BoundedExpiringMap } from '../bounded-map';

/** How many revocations one read of the table returns while a replica loads them. */
const PAGE = 10_000;

/**
 * Revoked sessions in PostgreSQL, shared by every replica, answered from memory.
 *
 * Forward auth asks `isRevoked` on every request with a cookie: it reads a local map, never the
 * database. The map is loaded after every (re)connection of the change listener (which LISTENs
 * first, so nothing committed meanwhile is missed), and each revocation, committed by any
 * replica, arrives by NOTIFY (sent by the same statement that writes it, delivered at commit):
 * a logout on one replica is refused on the others within milliseconds.
 *
 * Until the first load has finished, this replica cannot tell a revoked session from a live one:
 * `isRevoked` throws StateStoreUnavailableError (cookie sessions get a 503, never a pass) and the
 * readiness check `revocations` fails. During an outage afterwards, memory keeps answering; a
 * logout fails closed (503) because a revocation the other replicas may never learn is no logout.
 */
export class PostgresRevokedSessions implements RevokedSessions, ReadinessCheck {
  readonly name = 'revocations';
  // Until loaded, this replica answers every cookie session 503: it cannot serve forward auth.
  readonly gatesForwardAuth = true;
  private readonly known: BoundedExpiringMap<true>;
  private loaded = false;

  constructor(
    private readonly database: PostgresDatabase,
    private readonly clock: Clock,
    capacity = 1_000_000,
  ) {
    this.known = new BoundedExpiringMap(capacity);
    database.onChange('r', (id, until) => this.remember(id, until));
    database.onConnect(async (query) => {
      const now = this.clock.now();
      let after = '';
      for (;;) {
        const rows = await query<{ id: string; until: string }>('SELECT id, until FROM revoked_sessions WHERE until > $1 AND id > $2 ORDER BY id LIMIT $3', [
          now,
          after,
          PAGE,
        ]);
        for (const row of rows) this.remember(row.id, Number(row.until));
        if (rows.length < PAGE) break;
        after = rows[rows.length - 1].id;
      }
      this.loaded = true;
    });
    database.onSweep((at) => this.known.sweep(at));
  }

  /** Readiness: fails until the revocations in the database have been loaded once. */
  async check(): Promise<void> {
    if (!this.loaded) throw new Error('revocations not loaded from postgres yet');
  }

  /**
   * Resolves once the revocation is committed (and announced to every replica). Rejects with
   * StateStoreUnavailableError when it cannot be written: the logout answers 503.
   */
  async revoke(id: string, untilMs: number): Promise<void> {
    if (untilMs <= this.clock.now()) return;
    // A later expiry wins: revoking twice never shortens a revocation.
    await this.database.query(
      `WITH written AS (
         INSERT INTO revoked_sessions (id, until) VALUES ($1, $2)
         ON CONFLICT (id) DO UPDATE SET until = GREATEST(revoked_sessions.until, EXCLUDED.until)
         RETURNING id, until)
       SELECT pg_notify($3, 'r ' || id || ' ' || until) FROM written`,
      [id, untilMs, CHANGES_CHANNEL],
    );
    this.remember(id, untilMs);
  }

  async isRevoked(id: string): Promise<boolean> {
    if (!this.loaded) throw new StateStoreUnavailableError('postgres');
    return this.known.size !== 0 && this.known.get(id, this.clock.now()) === true;
  }

  private remember(id: string, until: number): void {
    const now = this.clock.now();
    if (until <= now) return;
    const kept = this.known.expiryOf(id, now) ?? 0;
    this.known.set(id, true, Math.max(kept, until));
  }
}
