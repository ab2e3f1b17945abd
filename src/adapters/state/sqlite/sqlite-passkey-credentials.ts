import type { PasskeyCredentials, PasskeyRemoval } from '../../../application/passkeys/passkey-credentials';
import type { Passkey } from '../../../domain/passkey';
import type { SqliteDatabase, Statement } from './sqlite-database';
import { PASSKEY_COLUMNS, passkeyOf, rowOf, type PasskeyRow } from '../passkey-rows';

/**
 * Passkeys on disk (table `passkeys`, schema step 4). Reads go through the write queue too: they
 * are rare (a login, the account page), and this way a read never sees a write that is not yet
 * committed, and a closed database fails closed like a write.
 */
export class SqlitePasskeyCredentials implements PasskeyCredentials {
  private insert!: Statement<[PasskeyRow]>;
  private count!: Statement<[string]>;
  private byId!: Statement<[string]>;
  private byUser!: Statement<[string]>;
  private rename_!: Statement<[string, string, string]>;
  private remove_!: Statement<[string, string]>;
  private use!: Statement<[number, number, string, number]>;

  constructor(private readonly database: SqliteDatabase) {
    database.whenOpen((db) => {
      this.insert = db.prepare(
        `INSERT INTO passkeys (${PASSKEY_COLUMNS}) VALUES (@id, @username, @name, @public_key, @counter, @transports, @created_at, @last_used_at)
         ON CONFLICT (id) DO NOTHING`,
      );
      this.count = db.prepare('SELECT COUNT(*) AS n FROM passkeys WHERE username = ?');
      this.byId = db.prepare(`SELECT ${PASSKEY_COLUMNS} FROM passkeys WHERE id = ?`);
      this.byUser = db.prepare(`SELECT ${PASSKEY_COLUMNS} FROM passkeys WHERE username = ? ORDER BY created_at, id`);
      this.rename_ = db.prepare('UPDATE passkeys SET name = ? WHERE username = ? AND id = ?');
      this.remove_ = db.prepare('DELETE FROM passkeys WHERE username = ? AND id = ?');
      this.use = db.prepare('UPDATE passkeys SET counter = ?, last_used_at = ? WHERE id = ? AND counter = ?');
    });
  }

  add(passkey: Passkey, max: number): Promise<boolean> {
    // Count and insert in one transaction: the database serialises writes, so the limit holds.
    return this.database.write(() => {
      if ((this.count.get(passkey.username) as { n: number }).n >= max) return false;
      return this.insert.run(rowOf(passkey)).changes === 1;
    });
  }

  find(id: string): Promise<Passkey | null> {
    return this.database.write(() => {
      const row = this.byId.get(id) as PasskeyRow | undefined;
      return row === undefined ? null : passkeyOf(row);
    });
  }

  list(username: string): Promise<Passkey[]> {
    return this.database.write(() => (this.byUser.all(username) as PasskeyRow[]).map(passkeyOf));
  }

  rename(username: string, id: string, name: string): Promise<boolean> {
    return this.database.write(() => this.rename_.run(name, username, id).changes === 1);
  }

  remove(username: string, id: string, keep = 0): Promise<PasskeyRemoval> {
    // Count and delete in one transaction, which the database serialises with every other write.
    return this.database.write(() => {
      const owned = this.byId.get(id) as PasskeyRow | undefined;
      if (owned === undefined || owned.username !== username) return 'not_found';
      if ((this.count.get(username) as { n: number }).n - 1 < keep) return 'kept';
      return this.remove_.run(username, id).changes === 1 ? 'removed' : 'not_found';
    });
  }

  recordUse(id: string, expected: number, counter: number, at: number): Promise<boolean> {
    return this.database.write(() => this.use.run(counter, at, id, expected).changes === 1);
  }
}
