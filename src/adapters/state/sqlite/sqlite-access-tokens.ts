import type { AccessTokens } from '../../../application/tokens/access-tokens';
import { StateStoreUnavailableError } from '../../../application/ports/state-store-unavailable';
import type { AccessTokenRecord } from '../../../domain/access-token';
import type { SqliteDatabase, Statement } from './sqlite-database';
import { ACCESS_TOKEN_COLUMNS, accessTokenOf, accessTokenRowOf, type AccessTokenRow } from '../access-token-rows';

/** How many records one prune step deletes (each step its own commit). */
const PRUNE_CHUNK = 1_000;

/**
 * Access tokens on disk (table `access_tokens`, schema step 8), kept across restarts. A token is
 * looked up on every request that presents one: {@link findByHash} reads the file directly
 * (one primary-key lookup, no queue), everything else goes through the write queue, so the
 * account page never sees a write that is not yet committed.
 */
export class SqliteAccessTokens implements AccessTokens {
  private insert!: Statement<[AccessTokenRow]>;
  private byHash!: Statement<[string]>;
  private byUser!: Statement<[string]>;
  private live!: Statement<[number], { username: string }>;
  private revoke_!: Statement<[number, string, string]>;
  private touch_!: Statement<[number, string, number]>;
  private prune_!: Statement<[number, number, number]>;

  constructor(private readonly database: SqliteDatabase) {
    database.whenOpen((db) => {
      this.insert = db.prepare(
        `INSERT OR REPLACE INTO access_tokens (${ACCESS_TOKEN_COLUMNS})
         VALUES (@hash, @id, @username, @name, @apps, @created_at, @expires_at, @last_used_at, @revoked_at)`,
      );
      this.byHash = db.prepare(`SELECT ${ACCESS_TOKEN_COLUMNS} FROM access_tokens WHERE hash = ?`);
      this.byUser = db.prepare(`SELECT ${ACCESS_TOKEN_COLUMNS} FROM access_tokens WHERE username = ? ORDER BY created_at DESC, id DESC`);
      this.live = db.prepare('SELECT DISTINCT username FROM access_tokens WHERE expires_at > ? AND revoked_at IS NULL') as Statement<
        [number],
        { username: string }
      >;
      this.revoke_ = db.prepare('UPDATE access_tokens SET revoked_at = ? WHERE username = ? AND id = ? AND revoked_at IS NULL');
      this.touch_ = db.prepare('UPDATE access_tokens SET last_used_at = ? WHERE hash = ? AND (last_used_at IS NULL OR last_used_at < ?)');
      this.prune_ = db.prepare(
        `DELETE FROM access_tokens WHERE hash IN
           (SELECT hash FROM access_tokens WHERE expires_at < ? UNION SELECT hash FROM access_tokens WHERE revoked_at < ? LIMIT ?)`,
      );
    });
  }

  async add(record: AccessTokenRecord): Promise<void> {
    await this.database.write(() => this.insert.run(accessTokenRowOf(record)));
  }

  findByHash(hash: string): AccessTokenRecord | null {
    if (!this.database.isOpen) throw new StateStoreUnavailableError('sqlite');
    let row: AccessTokenRow | undefined;
    try {
      row = this.byHash.get(hash) as AccessTokenRow | undefined;
    } catch (e) {
      throw new StateStoreUnavailableError('sqlite', { cause: e });
    }
    return row === undefined ? null : accessTokenOf(row);
  }

  list(username: string): Promise<AccessTokenRecord[]> {
    return this.database.write(() => (this.byUser.all(username) as AccessTokenRow[]).map(accessTokenOf));
  }

  accounts(now: number): Promise<string[]> {
    return this.database.write(() => this.live.all(now).map((r) => r.username));
  }

  revoke(username: string, id: string, at: number): Promise<boolean> {
    return this.database.write(() => this.revoke_.run(at, username, id).changes >= 1);
  }

  async touch(used: ReadonlyMap<string, number>): Promise<void> {
    if (used.size === 0) return;
    // One transaction for the whole batch: one commit, however many tokens were used.
    await this.database.write(() => {
      for (const [hash, at] of used) this.touch_.run(at, hash, at);
    });
  }

  async prune(before: number): Promise<void> {
    // Small steps, each its own commit, so a backlog never blocks the event loop for long.
    for (;;) {
      const deleted = await this.database.write(() => this.prune_.run(before, before, PRUNE_CHUNK).changes);
      if (deleted < PRUNE_CHUNK) break;
    }
  }
}
