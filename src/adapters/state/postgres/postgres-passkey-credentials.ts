import type { PasskeyCredentials, PasskeyRemoval } from '../../../application/passkeys/passkey-credentials';
import type { Passkey } from '../../../domain/passkey';
import type { PostgresDatabase } from './postgres-database';
import { PASSKEY_COLUMNS, passkeyOf, rowOf, type PasskeyRow } from '../passkey-rows';

/**
 * Passkeys in PostgreSQL (table `passkeys`, schema step 4), shared by every replica. The counter
 * update is one conditional UPDATE, so of two replicas recording a use of one counter value
 * exactly one changes the row. The per-account limit is checked in the INSERT itself; two
 * registrations racing on two replicas may pass it by one, which only bounds storage.
 */
export class PostgresPasskeyCredentials implements PasskeyCredentials {
  constructor(private readonly database: PostgresDatabase) {}

  async add(passkey: Passkey, max: number): Promise<boolean> {
    const r = rowOf(passkey);
    const rows = await this.database.query(
      `INSERT INTO passkeys (${PASSKEY_COLUMNS})
       SELECT $1, $2, $3, $4, $5, $6, $7, $8
       WHERE (SELECT COUNT(*) FROM passkeys WHERE username = $2) < $9
       ON CONFLICT (id) DO NOTHING
       RETURNING 1 AS added`,
      [r.id, r.username, r.name, r.public_key, r.counter, r.transports, r.created_at, r.last_used_at, max],
    );
    return rows.length === 1;
  }

  async find(id: string): Promise<Passkey | null> {
    const rows = await this.database.query<PasskeyRow & Record<string, unknown>>(`SELECT ${PASSKEY_COLUMNS} FROM passkeys WHERE id = $1`, [id]);
    return rows.length === 0 ? null : passkeyOf(rows[0]);
  }

  async list(username: string): Promise<Passkey[]> {
    const rows = await this.database.query<PasskeyRow & Record<string, unknown>>(
      `SELECT ${PASSKEY_COLUMNS} FROM passkeys WHERE username = $1 ORDER BY created_at, id`,
      [username],
    );
    return rows.map(passkeyOf);
  }

  async rename(username: string, id: string, name: string): Promise<boolean> {
    const rows = await this.database.query('UPDATE passkeys SET name = $1 WHERE username = $2 AND id = $3 RETURNING 1 AS renamed', [name, username, id]);
    return rows.length === 1;
  }

  async remove(username: string, id: string, keep = 0): Promise<PasskeyRemoval> {
    // One statement that locks every passkey of the account first: a second removal waits for
    // the first to commit, then counts without the row it removed (READ COMMITTED re-reads the
    // locked rows), so two removals on two replicas cannot take the last two.
    const rows = await this.database.query<{ owned: string; removed: string }>(
      `WITH held AS (SELECT id FROM passkeys WHERE username = $1 ORDER BY id FOR UPDATE),
            gone AS (DELETE FROM passkeys WHERE username = $1 AND id = $2 AND id IN (SELECT id FROM held)
                     AND (SELECT COUNT(*) FROM held) - 1 >= $3 RETURNING 1)
       SELECT (SELECT COUNT(*) FROM held WHERE id = $2) AS owned, (SELECT COUNT(*) FROM gone) AS removed`,
      [username, id, keep],
    );
    if (Number(rows[0].removed) === 1) return 'removed';
    return Number(rows[0].owned) === 1 ? 'kept' : 'not_found';
  }

  async recordUse(id: string, expected: number, counter: number, at: number): Promise<boolean> {
    const rows = await this.database.query('UPDATE passkeys SET counter = $1, last_used_at = $2 WHERE id = $3 AND counter = $4 RETURNING 1 AS used', [
      counter,
      at,
      id,
      expected,
    ]);
    return rows.length === 1;
  }
}
