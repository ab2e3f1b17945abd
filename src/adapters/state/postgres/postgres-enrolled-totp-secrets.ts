import type { EnrolledTotpSecrets } from '../../../application/totp/enrolled-totp-secrets';
import { StateStoreUnavailableError } from '../../../application/ports/state-store-unavailable';
import type { TotpSecretSealer } from '../../../application/totp/totp-secret-sealer';
import { CHANGES_CHANNEL, type PostgresDatabase } from './postgres-database';
import { SealedTotpSecrets } from '../sealed-totp-secrets';

/**
 * Self-enrolled TOTP secrets in PostgreSQL (table `enrolled_totp_secrets`, schema step 6), sealed,
 * shared by every replica and answered from memory, as the revocations are (ADR 0007, 0031): each
 * replica loads the table after every (re)connection of the change listener (which LISTENs first),
 * and every change, made by any replica, is announced by NOTIFY in the statement that makes it;
 * a replica that hears one reads that account's row again.
 *
 * Until the first load, `secretOf` throws StateStoreUnavailableError: this replica cannot tell an
 * account without a second factor from one whose owner set one up elsewhere (logins and HTTP
 * Basic fail closed, 503).
 */
export class PostgresEnrolledTotpSecrets implements EnrolledTotpSecrets {
  private readonly memory: SealedTotpSecrets;
  private loaded = false;
  /** Accounts announced while a load runs: read again after it, so its older snapshot cannot win. */
  private heard: Set<string> | null = null;

  constructor(
    private readonly database: PostgresDatabase,
    sealer: TotpSecretSealer,
    private readonly now: () => number,
  ) {
    this.memory = new SealedTotpSecrets(sealer);
    database.onChange('t', (username) => {
      this.heard?.add(username);
      void this.reread(username);
    });
    database.onConnect(async (query) => {
      this.heard = new Set();
      try {
        this.memory.reload(await query<{ username: string; sealed: string }>('SELECT username, sealed FROM enrolled_totp_secrets'));
        for (const username of this.heard) await this.reread(username);
      } finally {
        this.heard = null;
      }
      this.loaded = true;
    });
  }

  secretOf(username: string): string | null {
    if (!this.loaded) throw new StateStoreUnavailableError('postgres');
    return this.memory.get(username)?.secret ?? null;
  }

  async enrol(username: string, secret: string): Promise<boolean> {
    const sealed = this.memory.seal(username, secret);
    const rows = await this.database.query(
      `WITH written AS (
         INSERT INTO enrolled_totp_secrets (username, sealed, created_at) VALUES ($1, $2, $3)
         ON CONFLICT (username) DO NOTHING RETURNING username)
       SELECT pg_notify($4, 't ' || username || ' 0') FROM written`,
      [username, sealed, this.now(), CHANGES_CHANNEL],
    );
    if (rows.length === 1) this.memory.learn(username, sealed);
    return rows.length === 1;
  }

  async remove(username: string, secret: string): Promise<boolean> {
    const held = this.memory.get(username);
    if (held === undefined || held.secret !== secret) return false;
    const rows = await this.database.query(
      `WITH gone AS (DELETE FROM enrolled_totp_secrets WHERE username = $1 AND sealed = $2 RETURNING username)
       SELECT pg_notify($3, 't ' || username || ' 0') FROM gone`,
      [username, held.sealed, CHANGES_CHANNEL],
    );
    if (rows.length === 1) this.memory.learn(username, null);
    return rows.length === 1;
  }

  private async reread(username: string): Promise<void> {
    try {
      const rows = await this.database.query<{ sealed: string }>('SELECT sealed FROM enrolled_totp_secrets WHERE username = $1', [username]);
      this.memory.learn(username, rows[0]?.sealed ?? null);
    } catch {
      // The listener reconnects and reloads the whole table after an outage; nothing is lost.
    }
  }
}
