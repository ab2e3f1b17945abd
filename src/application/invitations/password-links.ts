/**
 * Single-use links that let a person choose their password (issue 36): an administrator's
 * invitation for a new person, or a password reset for one who has forgotten theirs. Shared by
 * every replica and kept across a restart, like the first-passkey links (same contract).
 *
 * Adapters store only what they are given: composition wraps them so that what reaches the store
 * is a keyed hash of the code, never the code (see HmacOneTimeLinks).
 */
export interface PasswordLinks {
  /** Stores a link for `username` under `code` until `untilMs`; after that it must read as unknown. */
  put(code: string, username: string, untilMs: number): Promise<void>;
  /**
   * Removes `code` and resolves the username it was made for, or null when it is unknown, already
   * taken or expired. Atomic: of several concurrent calls for one code (on any replicas) at most
   * one resolves the username. Throws StateStoreUnavailableError when the store cannot answer.
   */
  take(code: string): Promise<string | null>;
}
