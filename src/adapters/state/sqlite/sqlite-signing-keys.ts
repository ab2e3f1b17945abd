import type { Clock } from '../../../application/ports/clock';
import type { SigningKeys } from '../../../application/oidc/signing-keys';
import type { SqliteDatabase, Statement } from './sqlite-database';

/**
 * The signing key set in the embedded database (table `oidc_signing_keys`, one row), so a restart
 * signs with, and publishes, the same keys. The stored string is what the caller hands in; the
 * composition wraps this store in AesGcmSigningKeys, so the file holds the set sealed.
 */
export class SqliteSigningKeys implements SigningKeys {
  private insert!: Statement<[string, number]>;
  private select!: Statement<[], { key_set: string }>;
  private update!: Statement<[string, number]>;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock,
  ) {
    database.whenOpen((db) => {
      this.insert = db.prepare("INSERT INTO oidc_signing_keys (name, key_set, updated_at) VALUES ('current', ?, ?) ON CONFLICT (name) DO NOTHING");
      this.select = db.prepare("SELECT key_set FROM oidc_signing_keys WHERE name = 'current'");
      this.update = db.prepare(
        "INSERT INTO oidc_signing_keys (name, key_set, updated_at) VALUES ('current', ?, ?) ON CONFLICT (name) DO UPDATE SET key_set = excluded.key_set, updated_at = excluded.updated_at",
      );
    });
  }

  async getOrCreate(create: () => string): Promise<string> {
    const stored = this.select.get();
    if (stored !== undefined) return stored.key_set;
    // Created outside the write (generating a key takes a while); the insert keeps whichever set
    // was committed first, and the read in the same step returns that one.
    const candidate = create();
    const now = this.clock.now();
    return this.database.write(() => {
      this.insert.run(candidate, now);
      return (this.select.get() as { key_set: string }).key_set;
    });
  }

  async replace(keySet: string): Promise<void> {
    await this.database.write(() => this.update.run(keySet, this.clock.now()));
  }
}
