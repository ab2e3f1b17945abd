import type { IndexedSession } from '../../application/ports/session-index';

/**
 * A row of the `account_sessions` table as a database driver returns it: the times are numbers
 * from SQLite and BIGINT strings from PostgreSQL.
 */
export interface SessionRow {
  id: string;
  username: string;
  method: string;
  user_agent: string;
  address: string;
  started: number | string;
  last_seen: number | string;
  until: number | string;
}

/** The indexed session a row of `account_sessions` holds (the SQLite and the PostgreSQL index alike). */
export function sessionOfRow(row: SessionRow): IndexedSession {
  return {
    id: row.id,
    username: row.username,
    method: row.method,
    userAgent: row.user_agent,
    address: row.address,
    startedAt: Number(row.started),
    expiresAt: Number(row.until),
    lastSeenAt: Number(row.last_seen),
  };
}
