import type { AccessTokens } from '../../../application/tokens/access-tokens';
import type { AccessTokenRecord } from '../../../domain/access-token';
import type { PostgresDatabase } from './postgres-database';
import { ACCESS_TOKEN_COLUMNS, accessTokenOf, accessTokenRowOf, type AccessTokenRow } from '../access-token-rows';

/** How many records one prune statement deletes. */
const PRUNE_CHUNK = 1_000;

/**
 * Access tokens in PostgreSQL (table `access_tokens`, schema step 8), shared by every replica: a
 * token made on one replica passes on any other. Every call is one statement; revocation is a
 * conditional UPDATE, so of two replicas revoking one token exactly one answers true.
 */
export class PostgresAccessTokens implements AccessTokens {
  constructor(private readonly database: PostgresDatabase) {}

  async add(record: AccessTokenRecord): Promise<void> {
    const r = accessTokenRowOf(record);
    await this.database.query(
      `INSERT INTO access_tokens (${ACCESS_TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (hash) DO UPDATE SET id = EXCLUDED.id, username = EXCLUDED.username, name = EXCLUDED.name, apps = EXCLUDED.apps,
         created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, last_used_at = EXCLUDED.last_used_at, revoked_at = EXCLUDED.revoked_at`,
      [r.hash, r.id, r.username, r.name, r.apps, r.created_at, r.expires_at, r.last_used_at, r.revoked_at],
    );
  }

  async findByHash(hash: string): Promise<AccessTokenRecord | null> {
    const rows = await this.database.query<AccessTokenRow & Record<string, unknown>>(`SELECT ${ACCESS_TOKEN_COLUMNS} FROM access_tokens WHERE hash = $1`, [
      hash,
    ]);
    return rows.length === 0 ? null : accessTokenOf(rows[0]);
  }

  async list(username: string): Promise<AccessTokenRecord[]> {
    // COLLATE "C": ties broken by the id's bytes, as the other stores do, whatever the database's locale.
    const rows = await this.database.query<AccessTokenRow & Record<string, unknown>>(
      `SELECT ${ACCESS_TOKEN_COLUMNS} FROM access_tokens WHERE username = $1 ORDER BY created_at DESC, id COLLATE "C" DESC`,
      [username],
    );
    return rows.map(accessTokenOf);
  }

  async accounts(now: number): Promise<string[]> {
    const rows = await this.database.query<{ username: string }>('SELECT DISTINCT username FROM access_tokens WHERE expires_at > $1 AND revoked_at IS NULL', [
      now,
    ]);
    return rows.map((r) => r.username);
  }

  async revoke(username: string, id: string, at: number): Promise<boolean> {
    const rows = await this.database.query(
      'UPDATE access_tokens SET revoked_at = $1 WHERE username = $2 AND id = $3 AND revoked_at IS NULL RETURNING 1 AS revoked',
      [at, username, id],
    );
    return rows.length >= 1;
  }

  async touch(used: ReadonlyMap<string, number>): Promise<void> {
    if (used.size === 0) return;
    // One statement for the whole batch; a later time recorded meanwhile by another replica stays.
    await this.database.query(
      `UPDATE access_tokens AS t SET last_used_at = v.at
       FROM unnest($1::text[], $2::bigint[]) AS v(hash, at)
       WHERE t.hash = v.hash AND (t.last_used_at IS NULL OR t.last_used_at < v.at)`,
      [[...used.keys()], [...used.values()]],
    );
  }

  async prune(before: number): Promise<void> {
    for (;;) {
      const rows = await this.database.query(
        `DELETE FROM access_tokens WHERE hash IN
           (SELECT hash FROM access_tokens WHERE expires_at < $1 UNION SELECT hash FROM access_tokens WHERE revoked_at < $1 LIMIT $2)
         RETURNING 1 AS pruned`,
        [before, PRUNE_CHUNK],
      );
      if (rows.length < PRUNE_CHUNK) break;
    }
  }
}
