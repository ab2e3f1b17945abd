import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { OAuthFlowSealer } from '../../application/ports/oauth-flow-sealer';
import { isOAuthProviderKind, type OAuthFlow } from '../../domain/oauth-flow';
import { deriveKey } from './key-derivation';

const VERSION = 'f1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_TOKEN_LENGTH = 8192;

/**
 * Seals OAuth flows with AES-256-GCM under their own key derived from SECRET: encrypted, because
 * the cookie holds the PKCE verifier, which must not be readable by whoever sees the cookie.
 */
export class AesGcmOAuthFlowSealer implements OAuthFlowSealer {
  private readonly key: Buffer;
  private readonly aad = Buffer.from(`portcullis-oauth-flow-${VERSION}`);

  constructor(secret: string) {
    this.key = deriveKey(secret, `oauth-flow-cookie ${VERSION}`);
  }

  seal(flow: OAuthFlow): string {
    const payload = [flow.id, flow.provider, flow.state, flow.codeVerifier, flow.redirectTarget, flow.createdAt, flow.expiresAt];
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(this.aad);
    const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  unseal(token: string): OAuthFlow | null {
    if (token.length > MAX_TOKEN_LENGTH || !token.startsWith(`${VERSION}.`)) return null;
    const body = token.slice(VERSION.length + 1);
    const raw = Buffer.from(body, 'base64url');
    // Node's decoder skips characters outside the alphabet: only the one canonical spelling opens.
    if (raw.length < IV_BYTES + TAG_BYTES + 2 || raw.toString('base64url') !== body) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(this.aad);
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
      return toFlow(JSON.parse(plain.toString('utf8')));
    } catch {
      return null;
    }
  }
}

function toFlow(p: unknown): OAuthFlow | null {
  if (!Array.isArray(p) || p.length !== 7) return null;
  const [id, provider, state, codeVerifier, redirectTarget, createdAt, expiresAt] = p as unknown[];
  if (typeof id !== 'string' || typeof provider !== 'string' || !isOAuthProviderKind(provider)) return null;
  if (typeof state !== 'string' || typeof codeVerifier !== 'string') return null;
  if (redirectTarget !== null && typeof redirectTarget !== 'string') return null;
  if (typeof createdAt !== 'number' || typeof expiresAt !== 'number') return null;
  return Object.freeze({ id, provider, state, codeVerifier, redirectTarget, createdAt, expiresAt });
}
