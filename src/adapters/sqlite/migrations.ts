/**
 * The schema of `portcullis.db`, one step per version. `PRAGMA user_version` records how many
 * steps a file has had; at start-up the missing ones run in order, each in its own transaction.
 *
 * Rules for adding a feature (OIDC artifacts, passkeys, a session index): append a step; never
 * edit or reorder a step that has shipped (files in the field have already run it). Every row
 * that may be forgotten carries `until` (ms since the epoch) with an index, so the periodic sweep
 * can delete it cheaply.
 */
export interface Migration {
  /** The `user_version` the file has after this step (1, 2, 3, ... without gaps). */
  readonly version: number;
  readonly description: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'revoked sessions, login failures and locks, used TOTP steps, used OAuth flows',
    sql: `
      CREATE TABLE revoked_sessions (
        id TEXT PRIMARY KEY,
        until INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX revoked_sessions_until ON revoked_sessions (until);

      -- failures: in the current window; locked_until: 0 when not locked; until: when the row may go
      -- (the window's end or the lock's end, whichever is later).
      CREATE TABLE login_attempts (
        key TEXT PRIMARY KEY,
        failures INTEGER NOT NULL,
        locked_until INTEGER NOT NULL,
        until INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX login_attempts_until ON login_attempts (until);

      CREATE TABLE used_totp_steps (
        username TEXT PRIMARY KEY,
        step INTEGER NOT NULL,
        until INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX used_totp_steps_until ON used_totp_steps (until);

      CREATE TABLE used_oauth_flows (
        id TEXT PRIMARY KEY,
        until INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX used_oauth_flows_until ON used_oauth_flows (until);
    `,
  },
];

/** The newest schema this code knows. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS.length;

/** Tables whose rows carry `until` and are deleted by the sweep once it has passed, with their key column. */
export const EXPIRING_TABLES: ReadonlyArray<{ readonly table: string; readonly key: string }> = [
  { table: 'revoked_sessions', key: 'id' },
  { table: 'login_attempts', key: 'key' },
  { table: 'used_totp_steps', key: 'username' },
  { table: 'used_oauth_flows', key: 'id' },
];
