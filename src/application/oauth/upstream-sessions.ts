/** Who an upstream OpenID Connect provider said logged in: its `sub`, and its session id (`sid`) when its ID token carried one. */
export interface UpstreamLogin {
  readonly sub: string;
  readonly sid: string | null;
}

/** A gateway session made from an upstream login: the id RevokedSessions ends, and when it expires. */
export interface UpstreamSessionRef {
  readonly id: string;
  readonly expiresAt: number;
}

/**
 * Which gateway sessions came from which upstream provider session (`sid`) and subject (`sub`), so
 * that the provider's back-channel logout ends them. Shared by every replica where the store is;
 * entries may be forgotten once their sessions have expired.
 */
export interface UpstreamSessions {
  remember(provider: string, login: UpstreamLogin, session: UpstreamSessionRef): Promise<void>;
  /** The unexpired sessions made from provider session `sid`, or (`sub` alone) from any session of that subject. */
  find(provider: string, by: { readonly sid: string } | { readonly sub: string }): Promise<UpstreamSessionRef[]>;
}
