import type { PasskeySecondFactorChoices } from '../../../application/passkeys/passkey-second-factor-choices';
import type { PostgresDatabase } from './postgres-database';

/** Second-factor choices in PostgreSQL (table `passkey_second_factor`, schema step 7), shared by every replica. */
export class PostgresPasskeySecondFactorChoices implements PasskeySecondFactorChoices {
  constructor(private readonly database: PostgresDatabase) {}

  async chosen(username: string): Promise<boolean> {
    return (await this.database.query('SELECT 1 FROM passkey_second_factor WHERE username = $1', [username])).length > 0;
  }

  async choose(username: string, passkey: boolean): Promise<void> {
    if (passkey) await this.database.query('INSERT INTO passkey_second_factor (username) VALUES ($1) ON CONFLICT (username) DO NOTHING', [username]);
    else await this.database.query('DELETE FROM passkey_second_factor WHERE username = $1', [username]);
  }
}
