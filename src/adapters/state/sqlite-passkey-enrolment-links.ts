import type { Clock } from '../../application/ports/clock';
import type { PasskeyEnrolmentLinks } from '../../application/ports/passkey-enrolment-links';
import type { SqliteDatabase, Statement } from '../sqlite/sqlite-database';

/**
 * Enrolment links in the embedded database (table `passkey_enrolment_links`, schema step 7), so a
 * link made by the CLI while the gateway was stopped works once it runs. `DELETE … RETURNING`
 * takes a link in one statement: of two concurrent redemptions exactly one gets the row.
 */
export class SqlitePasskeyEnrolmentLinks implements PasskeyEnrolmentLinks {
  private insert!: Statement<[{ code: string; username: string; until: number }]>;
  private take_!: Statement<[{ code: string }]>;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
  ) {
    database.whenOpen((db) => {
      this.insert = db.prepare('INSERT INTO passkey_enrolment_links (code, username, until) VALUES (@code, @username, @until) ON CONFLICT (code) DO NOTHING');
      this.take_ = db.prepare('DELETE FROM passkey_enrolment_links WHERE code = @code RETURNING username, until');
    });
  }

  async put(code: string, username: string, untilMs: number): Promise<void> {
    await this.database.write(() => this.insert.run({ code, username, until: untilMs }));
  }

  async take(code: string): Promise<string | null> {
    const now = this.clock.now();
    const row = await this.database.write(() => this.take_.get({ code }) as { username: string; until: number } | undefined);
    // Deleted either way: an expired link is gone as soon as it is tried.
    return row === undefined || row.until <= now ? null : row.username;
  }
}
