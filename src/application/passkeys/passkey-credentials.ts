import type { Passkey } from '../../domain/passkey';

/** What a removal did (see PasskeyCredentials.remove). */
export type PasskeyRemoval = 'removed' | 'not_found' | 'kept';

/**
 * The passkeys people registered, per account, in the durable store. Every method rejects with
 * StateStoreUnavailableError when the store cannot answer (a login then fails closed with 503).
 */
export interface PasskeyCredentials {
  /**
   * Stores a new passkey. Resolves false and stores nothing when a passkey with its id exists
   * already (for any account) or its account holds `max` passkeys already.
   */
  add(passkey: Passkey, max: number): Promise<boolean>;

  /** The passkey with credential id `id` (exact, case-sensitive), or null. */
  find(id: string): Promise<Passkey | null>;

  /** Every passkey of `username` (exact spelling, as the user store gives it), oldest first. */
  list(username: string): Promise<Passkey[]>;

  /** Renames a passkey of `username`; false when `username` holds none with that id. */
  rename(username: string, id: string, name: string): Promise<boolean>;

  /**
   * Removes a passkey of `username`: `not_found` when `username` holds none with that id; `kept`,
   * removing nothing, when the account would be left with fewer than `keep` passkeys (default 0).
   * The count and the removal are one atomic step, so of two removals at once that would each
   * leave the last passkey, one is kept.
   */
  remove(username: string, id: string, keep?: number): Promise<PasskeyRemoval>;

  /**
   * Records a login with passkey `id`: its counter becomes `counter` and its last use `at`, but
   * only while its stored counter is still `expected` (compare and set). False when it changed
   * meanwhile (a concurrent login with a copy of the key) or the passkey is gone: the login fails.
   */
  recordUse(id: string, expected: number, counter: number, at: number): Promise<boolean>;
}
