/** Sessions ended by logout before their natural expiry. Entries may be forgotten once they expire. */
export interface RevokedSessions {
  /** Marks session `id` revoked until `untilMs` (its own expiry). */
  revoke(id: string, untilMs: number): Promise<void>;
  /** Resolves true when session `id` was revoked and has not yet expired. */
  isRevoked(id: string): Promise<boolean>;
}
