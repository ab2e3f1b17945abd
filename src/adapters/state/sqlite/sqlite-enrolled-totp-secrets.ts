import type { EnrolledTotpSecrets } from '../../../application/totp/enrolled-totp-secrets';
import type { TotpSecretSealer } from '../../../application/totp/totp-secret-sealer';
import type { SqliteDatabase, Statement } from './sqlite-database';
import { SealedTotpSecrets } from '../sealed-totp-secrets';

/**
 * Self-enrolled TOTP secrets on disk (table `enrolled_totp_secrets`, schema step 6), sealed, and
 * answered from memory: loaded when the file opens, updated after each committed write. This
 * gateway is the only writer of its database (SqliteDatabase holds a lock), so memory is complete.
 */
export class SqliteEnrolledTotpSecrets implements EnrolledTotpSecrets {
  private readonly memory: SealedTotpSecrets;
  private insert!: Statement<[string, string, number]>;
  private delete_!: Statement<[string, string]>;

  constructor(
    private readonly database: SqliteDatabase,
    sealer: TotpSecretSealer,
    private readonly now: () => number,
  ) {
    this.memory = new SealedTotpSecrets(sealer);
    database.whenOpen((db) => {
      this.insert = db.prepare('INSERT INTO enrolled_totp_secrets (username, sealed, created_at) VALUES (?, ?, ?) ON CONFLICT (username) DO NOTHING');
      this.delete_ = db.prepare('DELETE FROM enrolled_totp_secrets WHERE username = ? AND sealed = ?');
      this.memory.reload(db.prepare('SELECT username, sealed FROM enrolled_totp_secrets').all() as { username: string; sealed: string }[]);
    });
  }

  secretOf(username: string): string | null {
    return this.memory.get(username)?.secret ?? null;
  }

  async enrol(username: string, secret: string): Promise<boolean> {
    const sealed = this.memory.seal(username, secret);
    const stored = await this.database.write(() => this.insert.run(username, sealed, this.now()).changes === 1);
    if (stored) this.memory.learn(username, sealed);
    return stored;
  }

  async remove(username: string, secret: string): Promise<boolean> {
    const held = this.memory.get(username);
    if (held === undefined || held.secret !== secret) return false;
    const removed = await this.database.write(() => this.delete_.run(username, held.sealed).changes === 1);
    if (removed) this.memory.learn(username, null);
    return removed;
  }
}
