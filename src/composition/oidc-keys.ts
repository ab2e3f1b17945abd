import { createHash, createPrivateKey, generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import type { SigningKeys } from '../application/ports/signing-keys';

/** One private signing JWK as the key set stores it (`{"keys":[...]}`, the first RS256 key signs). */
export type SigningJwk = JsonWebKey & { readonly kid: string; readonly alg: string; readonly use: 'sig' };

/** The RFC 7638 thumbprint of a public RSA or EC key: a `kid` that names the key, not its holder. */
function thumbprint(jwk: JsonWebKey): string {
  const members = jwk.kty === 'RSA' ? { e: jwk.e, kty: jwk.kty, n: jwk.n } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

function rsaJwk(privateJwk: JsonWebKey): SigningJwk {
  return { ...privateJwk, kid: thumbprint(privateJwk), alg: 'RS256', use: 'sig' };
}

/**
 * The private keys of a PEM file, in order. Several keys in one file are a rotation in progress:
 * the first signs, the others are published so that tokens they signed still verify.
 */
export function pemBlocks(pem: string): string[] {
  return pem.match(/-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g) ?? [];
}

/** A new key set: one RSA 2048 key for RS256 (what every relying party supports). */
export function generateSigningKeySet(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return JSON.stringify({ keys: [rsaJwk(privateKey.export({ format: 'jwk' }))] });
}

/** A stored key set read back; throws (a fixed message, never the key) when it is not one. */
export function parseSigningKeySet(stored: string): SigningJwk[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    throw new Error('the stored OpenID Connect signing key set is not JSON');
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new Error('the stored OpenID Connect signing key set has no keys');
  for (const k of keys as Record<string, unknown>[]) {
    if (typeof k?.kid !== 'string' || typeof k.alg !== 'string' || k.use !== 'sig' || typeof k.d !== 'string')
      throw new Error('the stored OpenID Connect signing key set holds a key without kid, alg, use "sig" or its private part');
  }
  const list = keys as SigningJwk[];
  if (!list.some((k) => k.alg === 'RS256')) throw new Error('the stored OpenID Connect signing key set has no RS256 key');
  // The first RS256 key signs: oidc-provider signs with the first key of the algorithm, so it leads.
  const first = list.findIndex((k) => k.alg === 'RS256');
  return [list[first], ...list.filter((_, i) => i !== first)];
}

/**
 * The provider's signing keys: OIDC_SIGNING_KEY_FILE's key when configured; otherwise the key set
 * of the durable store, generated once (every replica and every restart then signs with, and
 * publishes, the same keys).
 */
export async function loadSigningKeys(pem: string | null, store: SigningKeys): Promise<SigningJwk[]> {
  if (pem !== null) return pemBlocks(pem).map((block) => rsaJwk(createPrivateKey(block).export({ format: 'jwk' })));
  return parseSigningKeySet(await store.getOrCreate(generateSigningKeySet));
}

/** The public half of each key (what JWKS publishes, and what a verifier needs). */
export function publicJwks(keys: readonly SigningJwk[]): { keys: Record<string, unknown>[] } {
  const PRIVATE = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth']);
  return { keys: keys.map((k) => Object.fromEntries(Object.entries(k).filter(([name]) => !PRIVATE.has(name)))) };
}
