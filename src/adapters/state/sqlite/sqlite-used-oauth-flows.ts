import type { Clock } from '../../../application/ports/clock';
import type { UsedOAuthFlows } from '../../../application/ports/used-oauth-flows';
import type { SqliteDatabase, Statement } from './sqlite-database';

/**
 * Used OAuth flows on disk. One statement decides: the insert succeeds for an unknown id or
 * replaces a row that has expired, and does nothing for a live one. Writes are serialised by the
 * database, so of two concurrent callbacks for one flow exactly one sees a change.
 */
export class SqliteUsedOAuthFlows implements UsedOAuthFlows {
  private use_!: Statement<[{ id: string; until: number; now: number }]>;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
  ) {
    database.whenOpen((db) => {
      this.use_ = db.prepare(
        'INSERT INTO used_oauth_flows (id, until) VALUES (@id, @until) ON CONFLICT (id) DO UPDATE SET until = excluded.until WHERE until <= @now',
      );
    });
  }

  async use(id: string, untilMs: number): Promise<boolean> {
    const now = this.clock.now();
    return this.database.write(() => this.use_.run({ id, until: Math.max(untilMs, now + 1), now }).changes === 1);
  }
}
