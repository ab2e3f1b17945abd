import type { Identity } from '../../domain/session';

/** What the provider remembers of a person who logged in to a client, to answer later token and userinfo requests. */
export interface OidcAccountRecord {
  readonly subject: string;
  readonly identity: Identity;
  /**
   * The credential fingerprint of the gateway session the last login came from (absent for an
   * OAuth identity, and in records older than this field): once the account's credential has
   * another, the tokens issued from that login stop working.
   */
  readonly credential?: string;
  /** Tokens issued before this instant (seconds since the epoch) stop working; 0: none. */
  readonly validAfter: number;
}

/**
 * The people who logged in through the OpenID Connect provider, by subject. An OAuth identity has
 * no account in a user store, so what the login proved is kept here until the longest token
 * issued from it has expired.
 */
export interface OidcAccounts {
  /** Stores (or refreshes) the record, kept at least `ttlSeconds`. Rejects when the store is down. */
  remember(record: OidcAccountRecord, ttlSeconds: number): Promise<void>;
  /** The record of `subject`, or null when none is kept (never logged in, or expired). */
  find(subject: string): Promise<OidcAccountRecord | null>;
  /**
   * Every token issued to `subject` before `atSeconds` stops working (the record's
   * {@link OidcAccountRecord.validAfter} moves there, never back); nothing when no record is kept.
   * Rejects when the store is down.
   */
  endTokensBefore(subject: string, atSeconds: number): Promise<void>;
}
