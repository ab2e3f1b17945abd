import type { Clock } from '../../application/ports/clock';
import type { HandoffCodes, HandoffGrant } from '../../application/ports/handoff-codes';
import type { SqliteDatabase, Statement } from '../sqlite/sqlite-database';
import { parseHandoffGrant } from './handoff-grant-json';

/**
 * Hand-off codes in the embedded database, so a code issued just before a restart still redeems
 * after it. `DELETE … RETURNING` takes a code in one statement; writes are serialised by the
 * database, so of two concurrent redemptions exactly one gets the row.
 */
export class SqliteHandoffCodes implements HandoffCodes {
  private insert!: Statement<[{ code: string; grant: string; until: number }]>;
  private take_!: Statement<[{ code: string }]>;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
  ) {
    database.whenOpen((db) => {
      this.insert = db.prepare('INSERT INTO handoff_codes (code, grant_json, until) VALUES (@code, @grant, @until) ON CONFLICT (code) DO NOTHING');
      this.take_ = db.prepare('DELETE FROM handoff_codes WHERE code = @code RETURNING grant_json, until');
    });
  }

  async put(code: string, grant: HandoffGrant, untilMs: number): Promise<void> {
    await this.database.write(() => this.insert.run({ code, grant: JSON.stringify(grant), until: untilMs }));
  }

  async take(code: string): Promise<HandoffGrant | null> {
    const now = this.clock.now();
    const row = await this.database.write(() => this.take_.get({ code }) as { grant_json: string; until: number } | undefined);
    // Deleted either way: an expired code is gone as soon as it is tried.
    if (row === undefined || row.until <= now) return null;
    return parseHandoffGrant(row.grant_json);
  }
}
