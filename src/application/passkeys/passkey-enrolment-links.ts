/**
 * Single-use links that let the owner of a passkey-only account register its first passkey
 * (issue 16): the administrator makes one with `portcullis passkeys enrol <user>`, the person opens
 * it and registers. Shared by every replica and kept across a restart (the link may be opened on
 * any replica, hours later).
 *
 * Adapters store only what they are given: composition wraps them so that what reaches the store
 * is a keyed hash of the code, never the code (see HmacOneTimeLinks).
 */
export interface PasskeyEnrolmentLinks {
  /** Stores a link for `username` under `code` until `untilMs`; after that it must read as unknown. */
  put(code: string, username: string, untilMs: number): Promise<void>;
  /**
   * Removes `code` and resolves the username it was made for, or null when it is unknown, already
   * taken or expired. Atomic: of several concurrent calls for one code (on any replicas) at most
   * one resolves the username. Throws StateStoreUnavailableError when the store cannot answer.
   */
  take(code: string): Promise<string | null>;
}
