import type { AccessTokenRecord } from '../../domain/access-token';

/**
 * An access token as the SQL stores keep it (table `access_tokens`, one row; apps as a JSON array,
 * NULL for every application). The times are numbers from SQLite and BIGINT strings from PostgreSQL.
 */
export interface AccessTokenRow {
  readonly hash: string;
  readonly id: string;
  readonly username: string;
  readonly name: string;
  readonly apps: string | null;
  readonly created_at: number | string;
  readonly expires_at: number | string;
  readonly last_used_at: number | string | null;
  readonly revoked_at: number | string | null;
}

export const ACCESS_TOKEN_COLUMNS = 'hash, id, username, name, apps, created_at, expires_at, last_used_at, revoked_at';

/** The row read back as a record. */
export function accessTokenOf(row: AccessTokenRow): AccessTokenRecord {
  return Object.freeze({
    id: row.id,
    hash: row.hash,
    username: row.username,
    name: row.name,
    apps: appsOf(row.apps),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  });
}

export function accessTokenRowOf(record: AccessTokenRecord): AccessTokenRow {
  return {
    hash: record.hash,
    id: record.id,
    username: record.username,
    name: record.name,
    apps: appsText(record.apps),
    created_at: record.createdAt,
    expires_at: record.expiresAt,
    last_used_at: record.lastUsedAt,
    revoked_at: record.revokedAt,
  };
}

/** A token's applications as stored: a JSON array of names, or null for every application. */
export function appsText(apps: readonly string[] | null): string | null {
  return apps === null ? null : JSON.stringify(apps);
}

/**
 * The applications read back. Anything but an array of strings (a row edited by hand) reads as an
 * empty list, which passes no application: a damaged scope narrows, never widens.
 */
export function appsOf(text: string | null): readonly string[] | null {
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed) && parsed.every((a) => typeof a === 'string')) return Object.freeze([...(parsed as string[])]);
  } catch {
    // falls through to the empty scope
  }
  return Object.freeze([]);
}
