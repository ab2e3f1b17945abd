import type { Clock } from '../../../application/ports/clock';
import type { UsedOAuthFlows } from '../../../application/ports/used-oauth-flows';
import type { PostgresDatabase } from './postgres-database';

/**
 * Used OAuth flows in PostgreSQL. One statement decides: the insert succeeds for an unknown id or
 * replaces a row that has expired, and does nothing for a live one; the row lock makes exactly
 * one of two concurrent callbacks (on any replicas) see a change.
 */
export class PostgresUsedOAuthFlows implements UsedOAuthFlows {
  constructor(
    private readonly database: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  async use(id: string, untilMs: number): Promise<boolean> {
    const now = this.clock.now();
    const rows = await this.database.query(
      `INSERT INTO used_oauth_flows (id, until) VALUES ($1, $2)
       ON CONFLICT (id) DO UPDATE SET until = EXCLUDED.until WHERE used_oauth_flows.until <= $3
       RETURNING 1 AS used`,
      [id, Math.max(untilMs, now + 1), now],
    );
    return rows.length === 1;
  }
}
