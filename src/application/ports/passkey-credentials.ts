import type { Passkey } from '../../domain/passkey';

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

  /** Removes a passkey of `username`; false when `username` holds none with that id. */
  remove(username: string, id: string): Promise<boolean>;

  /**
   * Records a login with passkey `id`: its counter becomes `counter` and its last use `at`, but
   * only while its stored counter is still `expected` (compare and set). False when it changed
   * meanwhile (a concurrent login with a copy of the key) or the passkey is gone: the login fails.
   */
  recordUse(id: string, expected: number, counter: number, at: number): Promise<boolean>;
}
