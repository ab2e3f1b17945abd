import type { Clock } from '../../../application/ports/clock';
import type { UsedTotpSteps } from '../../../application/ports/used-totp-steps';
import type { SqliteDatabase, Statement } from './sqlite-database';

/**
 * The last TOTP step each account used, on disk: a code accepted before a restart stays used
 * after it. The claim is one conditional upsert (it changes the row only for a later step, or
 * when the stored one has expired), committed before the code is accepted.
 */
export class SqliteUsedTotpSteps implements UsedTotpSteps {
  private claim_!: Statement<[{ username: string; step: number; until: number; now: number }]>;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
  ) {
    database.whenOpen((db) => {
      this.claim_ = db.prepare(
        `INSERT INTO used_totp_steps (username, step, until) VALUES (@username, @step, @until)
       ON CONFLICT (username) DO UPDATE SET step = excluded.step, until = excluded.until
       WHERE step < excluded.step OR until <= @now`,
      );
    });
  }

  async claim(username: string, step: number, untilMs: number): Promise<boolean> {
    const now = this.clock.now();
    return this.database.write(() => this.claim_.run({ username: username.toLowerCase(), step, until: untilMs, now }).changes === 1);
  }
}
