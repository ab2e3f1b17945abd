import type { Awaitable } from './awaitable';

/** Sessions ended by logout before their natural expiry. Entries may be forgotten once they expire. */
export interface RevokedSessions {
  /** Marks session `id` revoked until `untilMs` (its own expiry). */
  revoke(id: string, untilMs: number): Promise<void>;
  /**
   * True (at once, or resolved) when session `id` was revoked and has not yet expired. Throws
   * StateStoreUnavailableError when it cannot tell yet (a replica that has not loaded the shared
   * revocations): the caller must not treat the session as live then.
   */
  isRevoked(id: string): Awaitable<boolean>;
}
