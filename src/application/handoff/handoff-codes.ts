/**
 * What a hand-off code stands for (issue 17): the primary gateway vouches that the browser holding
 * the code is logged in with `sealedSession`, for the secondary cookie domain `domain` only.
 */
export interface HandoffGrant {
  /** The secondary's cookie domain (lower case) the code was issued for; any other domain must refuse it. */
  readonly domain: string;
  /**
   * The random value the secondary's hand-off start put in a host-only cookie of the browser that
   * began the hand-off: the code only works in that browser (no session planted from a link).
   */
  readonly state: string;
  /** The session, sealed (encrypted and authenticated): the secondary's cookie carries the same session. */
  readonly sealedSession: string;
  /** Where the browser goes once the secondary has set its cookie; inside `domain`. */
  readonly redirectTarget: string;
}

/**
 * Single-use hand-off codes, shared by every replica (the primary issues a code, any replica
 * behind the secondary's URL redeems it). Codes are random (≥ 128 bits) and short-lived (≤ 30 s).
 */
export interface HandoffCodes {
  /** Stores `grant` under `code` until `untilMs`; after that the code must read as unknown. */
  put(code: string, grant: HandoffGrant, untilMs: number): Promise<void>;
  /**
   * Removes `code` and resolves its grant, or null when the code is unknown, already taken or
   * expired. Atomic: of several concurrent calls for one code (on any replicas) at most one
   * resolves the grant. Throws StateStoreUnavailableError when the store cannot answer.
   */
  take(code: string): Promise<HandoffGrant | null>;
}
