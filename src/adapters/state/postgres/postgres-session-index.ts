import type { Clock } from '../../../application/ports/clock';
import type { IndexedSession, SessionIndex, SessionSighting } from '../../../application/ports/session-index';
import type { PostgresDatabase } from './postgres-database';
import { sessionOfRow, type SessionRow } from '../session-rows';

/**
 * The session index in PostgreSQL (table `account_sessions`), shared by every replica: a session
 * started on one replica is listed, and ended by "sign out everywhere", on any other. Every call
 * reads or writes the database (the account page is not a hot path); the sweep deletes expired rows.
 */
export class PostgresSessionIndex implements SessionIndex {
  constructor(
    private readonly database: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  async register(s: IndexedSession): Promise<void> {
    await this.database.query(
      `INSERT INTO account_sessions (id, username, method, user_agent, address, started, last_seen, until)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (id) DO UPDATE SET username = EXCLUDED.username, method = EXCLUDED.method, user_agent = EXCLUDED.user_agent,
         address = EXCLUDED.address, started = EXCLUDED.started, last_seen = EXCLUDED.last_seen, until = EXCLUDED.until`,
      [s.id, s.username.toLowerCase(), s.method, s.userAgent, s.address, s.startedAt, s.lastSeenAt, s.expiresAt],
    );
  }

  async list(username: string): Promise<IndexedSession[]> {
    const rows = await this.database.query<SessionRow>('SELECT * FROM account_sessions WHERE username = $1 AND until > $2 ORDER BY started DESC, id', [
      username.toLowerCase(),
      this.clock.now(),
    ]);
    return rows.map(sessionOfRow);
  }

  async accounts(): Promise<string[]> {
    const rows = await this.database.query<{ username: string }>('SELECT DISTINCT username FROM account_sessions WHERE until > $1', [this.clock.now()]);
    return rows.map((r) => r.username);
  }

  async touch(sightings: readonly SessionSighting[]): Promise<void> {
    if (sightings.length === 0) return;
    // One statement for the whole batch.
    await this.database.query(
      `UPDATE account_sessions AS s SET last_seen = GREATEST(s.last_seen, v.at)
       FROM unnest($1::text[], $2::bigint[]) AS v(id, at) WHERE s.id = v.id`,
      [sightings.map((x) => x.id), sightings.map((x) => x.at)],
    );
  }

  async lastSeen(id: string): Promise<number | null> {
    const rows = await this.database.query<{ last_seen: string | number }>('SELECT last_seen FROM account_sessions WHERE id = $1 AND until > $2', [
      id,
      this.clock.now(),
    ]);
    return rows.length === 0 ? null : Number(rows[0].last_seen);
  }
}
