import type { PasskeySecondFactorChoices } from '../../../application/passkeys/passkey-second-factor-choices';
import type { SqliteDatabase, Statement } from './sqlite-database';

/** Second-factor choices in the embedded database (table `passkey_second_factor`, schema step 7). */
export class SqlitePasskeySecondFactorChoices implements PasskeySecondFactorChoices {
  private get_!: Statement<[string]>;
  private set_!: Statement<[string]>;
  private unset_!: Statement<[string]>;

  constructor(private readonly database: SqliteDatabase) {
    database.whenOpen((db) => {
      this.get_ = db.prepare('SELECT 1 AS chosen FROM passkey_second_factor WHERE username = ?');
      this.set_ = db.prepare('INSERT INTO passkey_second_factor (username) VALUES (?) ON CONFLICT (username) DO NOTHING');
      this.unset_ = db.prepare('DELETE FROM passkey_second_factor WHERE username = ?');
    });
  }

  chosen(username: string): Promise<boolean> {
    // Through the write queue like the passkeys: never a read of an uncommitted write, and a closed database fails closed.
    return this.database.write(() => this.get_.get(username) !== undefined);
  }

  async choose(username: string, passkey: boolean): Promise<void> {
    await this.database.write(() => (passkey ? this.set_ : this.unset_).run(username));
  }
}
