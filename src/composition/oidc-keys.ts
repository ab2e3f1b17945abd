import { createHash, createPrivateKey, generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import type { KeySetChange } from '../adapters/cli/oidc-keys-command';
import type { SigningKeys } from '../application/oidc/signing-keys';
import { pemBlocks } from '../config/oidc';

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

/** A new RSA 2048 key for RS256 (what every relying party supports), named by its thumbprint. */
export function generateSigningKey(): SigningJwk {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return rsaJwk(privateKey.export({ format: 'jwk' }));
}

/** A new key set: one RS256 key. */
export function generateSigningKeySet(): string {
  return JSON.stringify({ keys: [generateSigningKey()] });
}

/**
 * A change to the stored key set (`portcullis oidc keys ...`). `rotate`: a new key signs from each
 * gateway's next start, the old ones stay published. `add`: a new key is published but does not
 * sign yet (several replicas: publish everywhere first, then `promote`). `promote`: a published key
 * signs. `retire`: a key that no longer signs leaves the JWKS (tokens it signed stop verifying).
 */
export type { KeySetChange };

/** Why a change was refused: one line for the operator, never key material. */
export class KeySetChangeError extends Error {}

/** The key set after `change`, the signing key first; `fresh` makes a new key. Throws {@link KeySetChangeError}. */
export function changeKeySet(keys: readonly SigningJwk[], change: KeySetChange, fresh: () => SigningJwk = generateSigningKey): SigningJwk[] {
  switch (change.kind) {
    case 'rotate':
      return [fresh(), ...keys];
    case 'add':
      return [...keys, fresh()];
    case 'promote': {
      const key = keys.find((k) => k.kid === change.kid);
      if (key === undefined) throw new KeySetChangeError(`there is no key ${change.kid} in the set`);
      if (key.alg !== 'RS256') throw new KeySetChangeError(`${change.kid} is a ${key.alg} key; only an RS256 key signs`);
      return [key, ...keys.filter((k) => k !== key)];
    }
    case 'retire': {
      const index = keys.findIndex((k) => k.kid === change.kid);
      if (index === -1) throw new KeySetChangeError(`there is no key ${change.kid} in the set`);
      // The signing key cannot go: a set without it would leave the gateways nothing to sign with.
      if (index === 0) throw new KeySetChangeError(`${change.kid} is the key that signs: rotate (or promote another key) first`);
      return keys.filter((_, i) => i !== index);
    }
    default: {
      const never: never = change;
      return never;
    }
  }
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
