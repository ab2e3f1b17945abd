/** One live session of an account, as the account page and `portcullis sessions list` show it. Times are ms since the epoch. */
export interface IndexedSession {
  /** The session's id (the key RevokedSessions revokes). */
  readonly id: string;
  /** The account, lower-cased (the session's username; an e-mail address for OAuth sessions). */
  readonly username: string;
  /** How the person logged in: `password`, `totp`, or the OAuth provider's id. */
  readonly method: string;
  /** The browser's User-Agent at login, cut to {@link MAX_USER_AGENT} characters ('' when absent). */
  readonly userAgent: string;
  /** The client address at login (`unknown` when it could not be read). */
  readonly address: string;
  readonly startedAt: number;
  readonly expiresAt: number;
  /** The last request seen with this session, to the minute (see docs/adr/0026); `startedAt` until then. */
  readonly lastSeenAt: number;
}

/** Longest User-Agent kept: a client must not make us store arbitrarily long strings. */
export const MAX_USER_AGENT = 512;

/** A "this session was used at" note, written in batches (never on a request's path). */
export interface SessionSighting {
  readonly id: string;
  readonly at: number;
}

/**
 * Which sessions each account has: what "sign out everywhere" consults to revoke them. Sessions
 * themselves stay sealed cookies; this index only lists them. Entries may be forgotten once they
 * expire (the sweep deletes them).
 */
export interface SessionIndex {
  /**
   * Records a new session. Resolves once it is stored durably (where the adapter is durable): a
   * session the index does not know could not be ended by "sign out everywhere", so the login that
   * made it must fail instead. Rejects with StateStoreUnavailableError when it cannot be written.
   */
  register(session: IndexedSession): Promise<void>;
  /**
   * The unexpired sessions of `username` (compared lower-cased), newest first; revoked ones are
   * the caller's to filter out. Rejects with StateStoreUnavailableError when it cannot be read.
   */
  list(username: string): Promise<IndexedSession[]>;
  /**
   * Every account (lower-cased, each once, in no set order) with at least one unexpired session,
   * revoked ones included: what the directory watch checks (issue 35). Rejects with
   * StateStoreUnavailableError when it cannot be read.
   */
  accounts(): Promise<string[]>;
  /**
   * Moves `lastSeenAt` forward for the sessions it knows (never backwards; unknown ids are
   * ignored). Called off the request path by a batching recorder. Rejects with
   * StateStoreUnavailableError when it cannot be written (the sightings are then dropped).
   */
  touch(sightings: readonly SessionSighting[]): Promise<void>;
  /**
   * The `lastSeenAt` of session `id` (issue 33, the idle timeout): the latest use any replica
   * wrote, or null when the index does not know the session (never registered, expired, or
   * forgotten). Asked only when a replica's own notes are older than the idle granularity, never
   * per request. Rejects with StateStoreUnavailableError when it cannot be read.
   */
  lastSeen(id: string): Promise<number | null>;
}
