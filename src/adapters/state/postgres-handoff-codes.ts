import type { Clock } from '../../application/ports/clock';
import type { HandoffCodes, HandoffGrant } from '../../application/ports/handoff-codes';
import type { PostgresDatabase } from '../postgres/postgres-database';
import { parseHandoffGrant } from './handoff-grant-json';

/**
 * Hand-off codes in PostgreSQL, shared by every replica. `DELETE … RETURNING` takes a code in one
 * statement: the row lock makes exactly one of two concurrent redemptions (on any replicas) get it.
 */
export class PostgresHandoffCodes implements HandoffCodes {
  constructor(
    private readonly database: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  async put(code: string, grant: HandoffGrant, untilMs: number): Promise<void> {
    await this.database.query('INSERT INTO handoff_codes (code, grant_json, until) VALUES ($1, $2, $3) ON CONFLICT (code) DO NOTHING', [
      code,
      JSON.stringify(grant),
      untilMs,
    ]);
  }

  async take(code: string): Promise<HandoffGrant | null> {
    const now = this.clock.now();
    const rows = await this.database.query<{ grant_json: string; until: string }>('DELETE FROM handoff_codes WHERE code = $1 RETURNING grant_json, until', [
      code,
    ]);
    if (rows.length === 0 || Number(rows[0].until) <= now) return null;
    return parseHandoffGrant(rows[0].grant_json);
  }
}
