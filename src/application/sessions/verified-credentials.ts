import type { BasicCredentials } from '../../domain/credentials';

/**
 * A short-lived memory of HTTP Basic credentials already verified, so headless clients do not pay
 * a bcrypt per request. Keys are derived from the credentials (never the password itself); bounded in size.
 */
export interface VerifiedCredentials {
  /** The username and credential version cached for `key`, or null when absent or expired at `nowMs`. */
  get(key: string, nowMs: number): { username: string; credentialVersion: string } | null;
  /** Remembers a verified header for `ttlMs`. */
  put(key: string, value: { username: string; credentialVersion: string }, nowMs: number, ttlMs: number): void;
  /** Drops every entry of `username` (lock, password change, removal). */
  forgetUser(username: string): void;
  /** Derives the cache key for a pair of credentials: equal for equal credentials, revealing nothing of the password. */
  keyFor(credentials: BasicCredentials): string;
}
