/**
 * The schema of the durable store, one step per version, in two dialects: `sql` for the embedded
 * SQLite file (`portcullis.db`, where `PRAGMA user_version` records how many steps it has had) and
 * `postgres` for PostgreSQL (where the table `portcullis_schema` does). At start-up the missing
 * steps run in order, each in its own transaction. One list, so the two stores can never drift
 * apart: a step exists in both or the PostgreSQL store refuses to start.
 *
 * Rules for adding a feature (OIDC artifacts, passkeys, a session index): append a step with both
 * dialects (same tables, same columns, same meaning); never edit or reorder a step that has shipped
 * (databases in the field have already run it). Every row that may be forgotten carries `until`
 * (ms since the epoch; BIGINT on PostgreSQL) with an index, so the periodic sweep can delete it
 * cheaply, and is named in {@link EXPIRING_TABLES}.
 */
export interface Migration {
  /** The schema version the database has after this step (1, 2, 3, ... without gaps). */
  readonly version: number;
  readonly description: string;
  /** SQLite dialect. */
  readonly sql: string;
  /** PostgreSQL dialect; every shipped step has one (a test checks), a step without it stops a PostgreSQL start. */
  readonly postgres?: string;
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
    postgres: `
      CREATE TABLE revoked_sessions (
        id TEXT PRIMARY KEY,
        until BIGINT NOT NULL
      );
      CREATE INDEX revoked_sessions_until ON revoked_sessions (until);

      CREATE TABLE login_attempts (
        key TEXT PRIMARY KEY,
        failures INTEGER NOT NULL,
        locked_until BIGINT NOT NULL,
        until BIGINT NOT NULL
      );
      CREATE INDEX login_attempts_until ON login_attempts (until);

      CREATE TABLE used_totp_steps (
        username TEXT PRIMARY KEY,
        step BIGINT NOT NULL,
        until BIGINT NOT NULL
      );
      CREATE INDEX used_totp_steps_until ON used_totp_steps (until);

      CREATE TABLE used_oauth_flows (
        id TEXT PRIMARY KEY,
        until BIGINT NOT NULL
      );
      CREATE INDEX used_oauth_flows_until ON used_oauth_flows (until);
    `,
  },
  {
    version: 2,
    description: 'OpenID Connect provider: artifacts (codes, sessions, grants, tokens, interactions) and the signing key set',
    // One row per (kind, id). `until` is NULL for a record kept until destroyed (the sweep never
    // matches NULL). `consumed` is kept beside the payload (ms since the epoch, NULL: not consumed),
    // so consuming never rewrites the provider's JSON. grant_id, uid and user_code are copied out
    // of the payload for revokeByGrantId, findByUid and findByUserCode. A rowid table (not WITHOUT
    // ROWID): the sweep deletes by rowid, as its key is two columns.
    sql: `
      CREATE TABLE oidc_artifacts (
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        payload TEXT NOT NULL,
        consumed INTEGER,
        grant_id TEXT,
        uid TEXT,
        user_code TEXT,
        until INTEGER,
        PRIMARY KEY (kind, id)
      );
      CREATE INDEX oidc_artifacts_until ON oidc_artifacts (until) WHERE until IS NOT NULL;
      CREATE INDEX oidc_artifacts_grant ON oidc_artifacts (grant_id) WHERE grant_id IS NOT NULL;
      CREATE INDEX oidc_artifacts_uid ON oidc_artifacts (kind, uid) WHERE uid IS NOT NULL;
      CREATE INDEX oidc_artifacts_user_code ON oidc_artifacts (kind, user_code) WHERE user_code IS NOT NULL;

      -- One row ('current'): the key set, sealed with a key derived from SECRET (never plaintext).
      CREATE TABLE oidc_signing_keys (
        name TEXT PRIMARY KEY,
        key_set TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
    postgres: `
      CREATE TABLE oidc_artifacts (
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        payload TEXT NOT NULL,
        consumed BIGINT,
        grant_id TEXT,
        uid TEXT,
        user_code TEXT,
        until BIGINT,
        PRIMARY KEY (kind, id)
      );
      CREATE INDEX oidc_artifacts_until ON oidc_artifacts (until) WHERE until IS NOT NULL;
      CREATE INDEX oidc_artifacts_grant ON oidc_artifacts (grant_id) WHERE grant_id IS NOT NULL;
      CREATE INDEX oidc_artifacts_uid ON oidc_artifacts (kind, uid) WHERE uid IS NOT NULL;
      CREATE INDEX oidc_artifacts_user_code ON oidc_artifacts (kind, user_code) WHERE user_code IS NOT NULL;

      CREATE TABLE oidc_signing_keys (
        name TEXT PRIMARY KEY,
        key_set TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 3,
    description: 'per-account session index',
    sql: `
      -- One row per live session (sessions themselves stay sealed cookies): what "sign out
      -- everywhere" and the account page read. until: the session's expiry.
      CREATE TABLE account_sessions (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL,
        method TEXT NOT NULL,
        user_agent TEXT NOT NULL,
        address TEXT NOT NULL,
        started INTEGER NOT NULL,
        last_seen INTEGER NOT NULL,
        until INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX account_sessions_username ON account_sessions (username, until);
      CREATE INDEX account_sessions_until ON account_sessions (until);
    `,
    postgres: `
      CREATE TABLE account_sessions (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL,
        method TEXT NOT NULL,
        user_agent TEXT NOT NULL,
        address TEXT NOT NULL,
        started BIGINT NOT NULL,
        last_seen BIGINT NOT NULL,
        until BIGINT NOT NULL
      );
      CREATE INDEX account_sessions_username ON account_sessions (username, until);
      CREATE INDEX account_sessions_until ON account_sessions (until);
    `,
  },
  {
    version: 4,
    description: 'passkeys (WebAuthn credentials) per account, with their signature counters',
    sql: `
      -- No until: a passkey lives until its owner removes it. transports: space-separated.
      CREATE TABLE passkeys (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL,
        name TEXT NOT NULL,
        public_key TEXT NOT NULL,
        counter INTEGER NOT NULL,
        transports TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER
      ) WITHOUT ROWID;
      CREATE INDEX passkeys_username ON passkeys (username, created_at);
    `,
    postgres: `
      CREATE TABLE passkeys (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL,
        name TEXT NOT NULL,
        public_key TEXT NOT NULL,
        counter BIGINT NOT NULL,
        transports TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        last_used_at BIGINT
      );
      CREATE INDEX passkeys_username ON passkeys (username, created_at);
    `,
  },
  {
    // Issue 17. Version 5 by the wave's plan (2 to 4 are other features' steps, merged in order).
    version: 5,
    description: 'single-use hand-off codes between gateway domains',
    // grant: the HandoffGrant as JSON (the session inside it is sealed); until: the code's expiry (≤ 30 s).
    sql: `
      CREATE TABLE handoff_codes (
        code TEXT PRIMARY KEY,
        grant_json TEXT NOT NULL,
        until INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX handoff_codes_until ON handoff_codes (until);
    `,
    postgres: `
      CREATE TABLE handoff_codes (
        code TEXT PRIMARY KEY,
        grant_json TEXT NOT NULL,
        until BIGINT NOT NULL
      );
      CREATE INDEX handoff_codes_until ON handoff_codes (until);
    `,
  },
  {
    // Issue 16 (wave 5). Version 6 by the wave's plan (7 is the passkey-only accounts' step).
    version: 6,
    description: 'TOTP secrets people set up themselves on the account page, sealed',
    // No until: a secret lives until its owner removes it. sealed: AES-GCM under a key derived
    // from SECRET, bound to the username (ADR 0031); the plain secret is never stored.
    sql: `
      CREATE TABLE enrolled_totp_secrets (
        username TEXT PRIMARY KEY,
        sealed TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
    postgres: `
      CREATE TABLE enrolled_totp_secrets (
        username TEXT PRIMARY KEY,
        sealed TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
    `,
  },
  {
    // Issue 16 (passkey-only). Version 7 by the wave's plan (6 is self-enrolled TOTP, merged in order).
    version: 7,
    description: 'passkey enrolment links and the per-account choice of a passkey as second factor',
    // code: a keyed hash of the link's code (never the code); until: the link's expiry.
    // passkey_second_factor: one row per account that chose a passkey as its second step (no until).
    sql: `
      CREATE TABLE passkey_enrolment_links (
        code TEXT PRIMARY KEY,
        username TEXT NOT NULL,
        until INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX passkey_enrolment_links_until ON passkey_enrolment_links (until);

      CREATE TABLE passkey_second_factor (
        username TEXT PRIMARY KEY
      ) WITHOUT ROWID;
    `,
    postgres: `
      CREATE TABLE passkey_enrolment_links (
        code TEXT PRIMARY KEY,
        username TEXT NOT NULL,
        until BIGINT NOT NULL
      );
      CREATE INDEX passkey_enrolment_links_until ON passkey_enrolment_links (until);

      CREATE TABLE passkey_second_factor (
        username TEXT PRIMARY KEY
      );
    `,
  },
  {
    // Issue 32.
    version: 8,
    description: 'personal and service access tokens, found by the keyed hash of their secret',
    // hash: HMAC of the token under a key derived from SECRET (never the token). apps: a JSON array
    // of application names, NULL: every application its owner may open. No until: a record stays
    // after it expires or is revoked (the account page shows it) until the tokens' own prune forgets
    // it, by expires_at and revoked_at. The username index serves the account page and revocation.
    sql: `
      CREATE TABLE access_tokens (
        hash TEXT PRIMARY KEY,
        id TEXT NOT NULL,
        username TEXT NOT NULL,
        name TEXT NOT NULL,
        apps TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER
      ) WITHOUT ROWID;
      CREATE INDEX access_tokens_username ON access_tokens (username, created_at);
      CREATE INDEX access_tokens_expires ON access_tokens (expires_at);
      CREATE INDEX access_tokens_revoked ON access_tokens (revoked_at) WHERE revoked_at IS NOT NULL;
    `,
    postgres: `
      CREATE TABLE access_tokens (
        hash TEXT PRIMARY KEY,
        id TEXT NOT NULL,
        username TEXT NOT NULL,
        name TEXT NOT NULL,
        apps TEXT,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        last_used_at BIGINT,
        revoked_at BIGINT
      );
      CREATE INDEX access_tokens_username ON access_tokens (username, created_at);
      CREATE INDEX access_tokens_expires ON access_tokens (expires_at);
      CREATE INDEX access_tokens_revoked ON access_tokens (revoked_at) WHERE revoked_at IS NOT NULL;
    `,
  },
  {
    // Issue 35.
    version: 9,
    description: 'back-channel logouts owed to OpenID Connect relying parties, claimed with a lease',
    // One row per logout token owed to one client. due_at: when the next attempt is due; leased_until:
    // until when a replica that claimed it is sending it (0: not claimed). until: when the sweep may
    // forget the row, past the longest retry bound (the worker gives a delivery up and audits it first).
    sql: `
      CREATE TABLE logout_deliveries (
        id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL,
        subject TEXT NOT NULL,
        sid TEXT,
        created_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL,
        due_at INTEGER NOT NULL,
        leased_until INTEGER NOT NULL,
        until INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX logout_deliveries_due ON logout_deliveries (due_at);
      CREATE INDEX logout_deliveries_until ON logout_deliveries (until);
    `,
    postgres: `
      CREATE TABLE logout_deliveries (
        id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL,
        subject TEXT NOT NULL,
        sid TEXT,
        created_at BIGINT NOT NULL,
        attempts INTEGER NOT NULL,
        due_at BIGINT NOT NULL,
        leased_until BIGINT NOT NULL,
        until BIGINT NOT NULL
      );
      CREATE INDEX logout_deliveries_due ON logout_deliveries (due_at);
      CREATE INDEX logout_deliveries_until ON logout_deliveries (until);
    `,
  },
  {
    // Issue 36.
    version: 10,
    description: 'the audit trail the admin console reads, kept for AUDIT_RETENTION_DAYS',
    // One row per audit event. id: the time it was recorded (base 36) then a tie-breaker, so ids sort
    // like times and a page ends at an id. username, login, admin, ip: copied out of the event for
    // the filters; data: the event as JSON (never a secret). PostgreSQL compares ids byte by byte
    // (COLLATE "C") whatever the database's locale, like SQLite. No until: the retention prune deletes
    // by time (AUDIT_RETENTION_DAYS may change between starts), so the table is not in the sweep.
    sql: `
      CREATE TABLE audit_events (
        id TEXT PRIMARY KEY,
        time INTEGER NOT NULL,
        event TEXT NOT NULL,
        username TEXT,
        login TEXT,
        admin TEXT,
        ip TEXT,
        data TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX audit_events_time ON audit_events (time);
      CREATE INDEX audit_events_username ON audit_events (username, id) WHERE username IS NOT NULL;
      CREATE INDEX audit_events_login ON audit_events (login, id) WHERE login IS NOT NULL;
      CREATE INDEX audit_events_admin ON audit_events (admin, id) WHERE admin IS NOT NULL;
      CREATE INDEX audit_events_event ON audit_events (event, id);
    `,
    postgres: `
      CREATE TABLE audit_events (
        id TEXT COLLATE "C" PRIMARY KEY,
        time BIGINT NOT NULL,
        event TEXT NOT NULL,
        username TEXT,
        login TEXT,
        admin TEXT,
        ip TEXT,
        data TEXT NOT NULL
      );
      CREATE INDEX audit_events_time ON audit_events (time);
      CREATE INDEX audit_events_username ON audit_events (username, id) WHERE username IS NOT NULL;
      CREATE INDEX audit_events_login ON audit_events (login, id) WHERE login IS NOT NULL;
      CREATE INDEX audit_events_admin ON audit_events (admin, id) WHERE admin IS NOT NULL;
      CREATE INDEX audit_events_event ON audit_events (event, id);
    `,
  },
];

/** The newest schema this code knows. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** Tables whose rows carry `until` and are deleted by the sweep once it has passed, with their key column. */
export const EXPIRING_TABLES: ReadonlyArray<{ readonly table: string; readonly key: string }> = [
  { table: 'revoked_sessions', key: 'id' },
  { table: 'login_attempts', key: 'key' },
  { table: 'used_totp_steps', key: 'username' },
  { table: 'used_oauth_flows', key: 'id' },
  // Keyed by (kind, id); the SQLite sweep deletes by the implicit rowid (PostgreSQL's by `until` alone).
  { table: 'oidc_artifacts', key: 'rowid' },
  { table: 'account_sessions', key: 'id' },
  { table: 'handoff_codes', key: 'code' },
  { table: 'passkey_enrolment_links', key: 'code' },
  { table: 'logout_deliveries', key: 'id' },
];
