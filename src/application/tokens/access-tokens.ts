import type { AccessTokenRecord } from '../../domain/access-token';
import type { Awaitable } from '../ports/awaitable';

/**
 * Where access tokens are kept (issue 32): durable records, found by the keyed hash of their
 * secret. Revocation reaches every replica through the session revocations (tokenRevocationId);
 * the record's `revokedAt` is what the account page and the CLI show.
 */
export interface AccessTokens {
  /** Stores a new token. */
  add(record: AccessTokenRecord): Promise<void>;
  /** The token with this keyed hash, revoked or expired ones included; null when there is none. */
  findByHash(hash: string): Awaitable<AccessTokenRecord | null>;
  /** The account's tokens, newest first, revoked and expired ones included until they are forgotten. */
  list(username: string): Promise<AccessTokenRecord[]>;
  /** Every account (each once, in no set order) with a token neither expired nor revoked at `now`: what the directory watch checks (issue 35). */
  accounts(now: number): Promise<string[]>;
  /** Marks the account's token `id` revoked at `at`; false when the account has no such token (or it was revoked already). */
  revoke(username: string, id: string, at: number): Promise<boolean>;
  /** Records when tokens were last used (a batch: hash → time). */
  touch(used: ReadonlyMap<string, number>): Promise<void>;
  /** Forgets tokens expired or revoked before `before`. */
  prune(before: number): Promise<void>;
}
