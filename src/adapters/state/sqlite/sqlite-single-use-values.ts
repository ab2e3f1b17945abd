import type { Clock } from '../../../application/ports/clock';
import type { SingleUseCodec } from '../single-use-codec';
import type { SqliteDatabase, Statement } from './sqlite-database';

/**
 * Values taken at most once, in the embedded database (hand-off codes, passkey enrolment links),
 * so a value stored just before a restart still redeems after it. `DELETE … RETURNING` takes a
 * value in one statement; writes are serialised by the database, so of two concurrent
 * redemptions exactly one gets the row. An expired row is deleted as soon as it is tried.
 */
export class SqliteSingleUseValues<V> {
  private insert!: Statement<[{ code: string; value: string; until: number }]>;
  private take_!: Statement<[{ code: string }]>;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
    // The table (`code` primary key, the value's text column, `until` in ms) and that column: names
    // fixed by the adapter that owns the table, never input, so they may stand in the SQL text.
    table: string,
    column: string,
    private readonly codec: SingleUseCodec<V>,
  ) {
    database.whenOpen((db) => {
      this.insert = db.prepare(`INSERT INTO ${table} (code, ${column}, until) VALUES (@code, @value, @until) ON CONFLICT (code) DO NOTHING`);
      this.take_ = db.prepare(`DELETE FROM ${table} WHERE code = @code RETURNING ${column} AS value, until`);
    });
  }

  /** Stores `value` under `code` until `untilMs`, unless the code is already there. */
  async put(code: string, value: V, untilMs: number): Promise<void> {
    await this.database.write(() => this.insert.run({ code, value: this.codec.encode(value), until: untilMs }));
  }

  /** Removes the code and resolves its value when it was there and unexpired, else null. */
  async take(code: string): Promise<V | null> {
    const now = this.clock.now();
    const row = await this.database.write(() => this.take_.get({ code }) as { value: string; until: number } | undefined);
    return row === undefined || row.until <= now ? null : this.codec.decode(row.value);
  }
}
