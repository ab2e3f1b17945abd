import type { Clock } from '../../../application/ports/clock';
import type { UsedTotpSteps } from '../../../application/ports/used-totp-steps';
import type { PostgresDatabase } from './postgres-database';

/**
 * The last TOTP step each account used, in PostgreSQL, shared by every replica. The claim is one
 * conditional upsert (it changes the row only for a later step, or when the stored one has
 * expired); PostgreSQL locks the row, so of two replicas claiming one code at once exactly one
 * changes it. Committed before the code is accepted.
 */
export class PostgresUsedTotpSteps implements UsedTotpSteps {
  constructor(
    private readonly database: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  async claim(username: string, step: number, untilMs: number): Promise<boolean> {
    const rows = await this.database.query(
      `INSERT INTO used_totp_steps (username, step, until) VALUES ($1, $2, $3)
       ON CONFLICT (username) DO UPDATE SET step = EXCLUDED.step, until = EXCLUDED.until
       WHERE used_totp_steps.step < EXCLUDED.step OR used_totp_steps.until <= $4
       RETURNING 1 AS claimed`,
      [username.toLowerCase(), step, untilMs, this.clock.now()],
    );
    return rows.length === 1;
  }
}
