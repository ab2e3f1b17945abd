import type { SigningKeys } from '../application/oidc/signing-keys';
import { generateSigningKey, generateSigningKeySet, signingJwkOfPem, type SigningJwk } from '../adapters/crypto/rsa-signing-key-generator';
import { changeKeySet as changeKeySetBy, KeySetChangeError, pemBlocks, type KeySetChange } from '../domain/signing-key-set';

// Key generation is the crypto adapter's; the key set's rules are the domain's. This module wires
// them to the store, and re-exports them for the callers that knew them here.
export { generateSigningKey, generateSigningKeySet, type SigningJwk };
export { KeySetChangeError, pemBlocks, type KeySetChange };

/** The key set after `change`, the signing key first; `fresh` makes a new key. Throws {@link KeySetChangeError}. */
export function changeKeySet(keys: readonly SigningJwk[], change: KeySetChange, fresh: () => SigningJwk = generateSigningKey): SigningJwk[] {
  return changeKeySetBy(keys, change, fresh);
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
  if (pem !== null) return pemBlocks(pem).map(signingJwkOfPem);
  return parseSigningKeySet(await store.getOrCreate(generateSigningKeySet));
}

/** The public half of each key (what JWKS publishes, and what a verifier needs). */
export function publicJwks(keys: readonly SigningJwk[]): { keys: Record<string, unknown>[] } {
  const PRIVATE = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth']);
  return { keys: keys.map((k) => Object.fromEntries(Object.entries(k).filter(([name]) => !PRIVATE.has(name)))) };
}
