import type { OAuthFlow } from '../../domain/oauth-flow';

/** Turns a pending OAuth flow into an opaque, tamper-proof token (a cookie value) and back. */
export interface OAuthFlowSealer {
  /** Seals a flow; the token reveals neither its state nor its PKCE verifier and cannot be altered. */
  seal(flow: OAuthFlow): string;
  /** Opens a token; null for anything tampered, foreign, malformed or of an unknown version. Never throws. Does not check expiry. */
  unseal(token: string): OAuthFlow | null;
}
