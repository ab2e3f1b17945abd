import type { Clock } from '../../../application/ports/clock';
import type { SingleUseCodec } from '../single-use-codec';
import type { PostgresDatabase } from './postgres-database';

/**
 * Values taken at most once, in PostgreSQL and shared by every replica (hand-off codes, passkey
 * enrolment links). `DELETE … RETURNING` takes a value in one statement: the row lock gives it to
 * exactly one of two concurrent redemptions (on any replicas).
 */
export class PostgresSingleUseValues<V> {
  private readonly insert: string;
  private readonly remove: string;

  constructor(
    private readonly database: PostgresDatabase,
    private readonly clock: Clock,
    // The table (`code` primary key, the value's text column, `until` in ms) and that column: names
    // fixed by the adapter that owns the table, never input, so they may stand in the SQL text.
    table: string,
    column: string,
    private readonly codec: SingleUseCodec<V>,
  ) {
    this.insert = `INSERT INTO ${table} (code, ${column}, until) VALUES ($1, $2, $3) ON CONFLICT (code) DO NOTHING`;
    this.remove = `DELETE FROM ${table} WHERE code = $1 RETURNING ${column} AS value, until`;
  }

  /** Stores `value` under `code` until `untilMs`, unless the code is already there. */
  async put(code: string, value: V, untilMs: number): Promise<void> {
    await this.database.query(this.insert, [code, this.codec.encode(value), untilMs]);
  }

  /** Removes the code and resolves its value when it was there and unexpired, else null. */
  async take(code: string): Promise<V | null> {
    const now = this.clock.now();
    const rows = await this.database.query<{ value: string; until: string }>(this.remove, [code]);
    return rows.length === 0 || Number(rows[0].until) <= now ? null : this.codec.decode(rows[0].value);
  }
}
