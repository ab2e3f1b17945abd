import type { Clock } from '../../../application/ports/clock';
import type { SigningKeys } from '../../../application/oidc/signing-keys';
import type { PostgresDatabase } from './postgres-database';

/**
 * The signing key set in PostgreSQL (table `oidc_signing_keys`, one row), shared by every replica.
 * The composition wraps this store in AesGcmSigningKeys, so the database holds the set sealed.
 */
export class PostgresSigningKeys implements SigningKeys {
  constructor(
    private readonly database: PostgresDatabase,
    private readonly clock: Clock,
  ) {}

  async getOrCreate(create: () => string): Promise<string> {
    const stored = await this.read();
    if (stored !== undefined) return stored;
    // Of two replicas inserting at once, the primary key lets one row in; both then read that row
    // (READ COMMITTED: the read after the insert sees the winner's commit, as the insert waited for it).
    await this.database.query("INSERT INTO oidc_signing_keys (name, key_set, updated_at) VALUES ('current', $1, $2) ON CONFLICT (name) DO NOTHING", [
      create(),
      this.clock.now(),
    ]);
    const winner = await this.read();
    if (winner === undefined) throw new Error('the signing key set vanished right after it was stored');
    return winner;
  }

  async replace(keySet: string): Promise<void> {
    await this.database.query(
      `INSERT INTO oidc_signing_keys (name, key_set, updated_at) VALUES ('current', $1, $2)
       ON CONFLICT (name) DO UPDATE SET key_set = EXCLUDED.key_set, updated_at = EXCLUDED.updated_at`,
      [keySet, this.clock.now()],
    );
  }

  private async read(): Promise<string | undefined> {
    const rows = await this.database.query<{ key_set: string }>("SELECT key_set FROM oidc_signing_keys WHERE name = 'current'");
    return rows[0]?.key_set;
  }
}
