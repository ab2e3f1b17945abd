import type { Clock } from '../../../application/ports/clock';
import type { IndexedSession, SessionIndex, SessionSighting } from '../../../application/ports/session-index';
import type { SqliteDatabase, Statement } from './sqlite-database';
import { sessionOfRow } from '../session-rows';

interface Row {
  id: string;
  username: string;
  method: string;
  user_agent: string;
  address: string;
  started: number;
  last_seen: number;
  until: number;
}

/**
 * The session index on disk (table `account_sessions`): a session registered before a restart is
 * still listed, and still ended by "sign out everywhere", after it. Registration is committed
 * before the login answers; the periodic sweep deletes rows once their session has expired.
 */
export class SqliteSessionIndex implements SessionIndex {
  private insert!: Statement<[Row]>;
  private select!: Statement<[string, number], Row>;
  private live!: Statement<[number], { username: string }>;
  private seen!: Statement<[number, string]>;
  private lastSeenOf!: Statement<[string, number], { last_seen: number }>;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
  ) {
    database.whenOpen((db) => {
      this.insert = db.prepare(
        `INSERT OR REPLACE INTO account_sessions (id, username, method, user_agent, address, started, last_seen, until)
         VALUES (@id, @username, @method, @user_agent, @address, @started, @last_seen, @until)`,
      );
      this.select = db.prepare('SELECT * FROM account_sessions WHERE username = ? AND until > ? ORDER BY started DESC, id') as Statement<[string, number], Row>;
      this.live = db.prepare('SELECT DISTINCT username FROM account_sessions WHERE until > ?') as Statement<[number], { username: string }>;
      this.seen = db.prepare('UPDATE account_sessions SET last_seen = max(last_seen, ?) WHERE id = ?');
      this.lastSeenOf = db.prepare('SELECT last_seen FROM account_sessions WHERE id = ? AND until > ?') as Statement<[string, number], { last_seen: number }>;
    });
  }

  async register(s: IndexedSession): Promise<void> {
    const row: Row = {
      id: s.id,
      username: s.username.toLowerCase(),
      method: s.method,
      user_agent: s.userAgent,
      address: s.address,
      started: s.startedAt,
      last_seen: s.lastSeenAt,
      until: s.expiresAt,
    };
    await this.database.write(() => this.insert.run(row));
  }

  async list(username: string): Promise<IndexedSession[]> {
    return this.select.all(username.toLowerCase(), this.clock.now()).map(sessionOfRow);
  }

  async accounts(): Promise<string[]> {
    return this.live.all(this.clock.now()).map((r) => r.username);
  }

  async touch(sightings: readonly SessionSighting[]): Promise<void> {
    if (sightings.length === 0) return;
    // One transaction for the whole batch: one commit, however many sessions were seen.
    await this.database.write(() => {
      for (const { id, at } of sightings) this.seen.run(at, id);
    });
  }

  async lastSeen(id: string): Promise<number | null> {
    const row = this.lastSeenOf.get(id, this.clock.now());
    return row === undefined ? null : Number(row.last_seen);
  }
}
