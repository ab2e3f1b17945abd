import type { Clock } from '../../application/ports/clock';
import type { PasskeyEnrolmentLinks } from '../../application/ports/passkey-enrolment-links';
import type { PostgresDatabase } from '../postgres/postgres-database';

/**
 * Enrolment links in PostgreSQL, shared by every replica. `DELETE … RETURNING` takes a link in one
 * statement: the row lock gives it to exactly one of two concurrent redemptions (on any replicas).
 */
export class PostgresPasskeyEnrolmentLinks implements PasskeyEnrolmentLinks {
  constructor(
    private readonly database: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  async put(code: string, username: string, untilMs: number): Promise<void> {
    await this.database.query('INSERT INTO passkey_enrolment_links (code, username, until) VALUES ($1, $2, $3) ON CONFLICT (code) DO NOTHING', [
      code,
      username,
      untilMs,
    ]);
  }

  async take(code: string): Promise<string | null> {
    const now = this.clock.now();
    const rows = await this.database.query<{ username: string; until: string }>(
      'DELETE FROM passkey_enrolment_links WHERE code = $1 RETURNING username, until',
      [code],
    );
    return rows.length === 0 || Number(rows[0].until) <= now ? null : rows[0].username;
  }
}
