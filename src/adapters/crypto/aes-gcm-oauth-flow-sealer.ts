import type { OAuthFlowSealer } from '../../application/oauth/oauth-flow-sealer';
import { isOAuthProviderId, type OAuthFlow } from '../../domain/oauth-flow';
import { AesGcmBox } from './aes-gcm-box';

/**
 * Seals OAuth flows with AES-256-GCM under their own key derived from SECRET: encrypted, because
 * the cookie holds the PKCE verifier, which must not be readable by whoever sees the cookie.
 */
export class AesGcmOAuthFlowSealer implements OAuthFlowSealer {
  private readonly box: AesGcmBox;

  constructor(secret: string) {
    this.box = new AesGcmBox(secret, 'oauth-flow', 'f1');
  }

  seal(flow: OAuthFlow): string {
    const payload = [flow.id, flow.provider, flow.state, flow.codeVerifier, flow.redirectTarget, flow.createdAt, flow.expiresAt];
    return this.box.seal(payload);
  }

  unseal(token: string): OAuthFlow | null {
    return toFlow(this.box.open(token));
  }
}

function toFlow(p: unknown): OAuthFlow | null {
  if (!Array.isArray(p) || p.length !== 7) return null;
  const [id, provider, state, codeVerifier, redirectTarget, createdAt, expiresAt] = p as unknown[];
  if (typeof id !== 'string' || typeof provider !== 'string' || !isOAuthProviderId(provider)) return null;
  if (typeof state !== 'string' || typeof codeVerifier !== 'string') return null;
  if (redirectTarget !== null && typeof redirectTarget !== 'string') return null;
  if (typeof createdAt !== 'number' || typeof expiresAt !== 'number') return null;
  return Object.freeze({ id, provider, state, codeVerifier, redirectTarget, createdAt, expiresAt });
}
