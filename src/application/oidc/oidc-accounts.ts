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
  /** When the last login with another credential than the one before happened (seconds since the epoch; 0: never): older tokens stop working. */
  readonly credentialSince: number;
  /** The clients the person logged in to through the provider, with when they last did (seconds since the epoch). */
  readonly clients: Readonly<Record<string, number>>;
}

/** What ended the person's tokens: "sign out everywhere" (`all`) and each app signed out of on its own (`clients`), seconds since the epoch. */
export interface OidcTokensEnded {
  readonly all: number;
  readonly clients: Readonly<Record<string, number>>;
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
   * Every token issued to `subject` before `atSeconds` (of `clientId` only, when given) stops
   * working. Kept apart from the record, so a login saving the record at the same moment cannot
   * undo it; an instant never moves back. Rejects when the store is down.
   */
  endTokensBefore(subject: string, atSeconds: number, clientId?: string): Promise<void>;
  /** What ended the tokens of `subject` so far (zeros when nothing did). */
  tokensEnded(subject: string): Promise<OidcTokensEnded>;
}
