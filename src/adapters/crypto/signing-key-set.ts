import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

/**
 * The provider's signing key set as wave 4 agreed its format: JSON `{"keys":[...]}` of private
 * JWKs, each with `kid`, `alg` ("RS256" first; ES256 may follow) and `use: "sig"`; the first
 * RS256 key signs. The OpenID Connect provider publishes the public halves as its JWKS; its loader
 * (composition/oidc-keys.ts) reads the key file or the store, this turns the result into a key that signs.
 */
export interface SigningKey {
  readonly kid: string;
  readonly alg: 'RS256';
  readonly privateKey: KeyObject;
  /** What the JWKS publishes for it: the public JWK with `kid`, `alg` and `use`. */
  readonly publicJwk: JsonWebKey & { kid: string; alg: string; use: string };
}

/** Why a key set cannot sign; the texts never include key material. */
export class SigningKeySetError extends Error {}

function signingKey(privateKey: KeyObject, kid: string): SigningKey {
  if (privateKey.asymmetricKeyType !== 'rsa') throw new SigningKeySetError('the signing key is not an RSA key');
  const bits = privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 2048) throw new SigningKeySetError(`the RSA signing key has ${bits} bits; at least 2048 are needed`);
  const pub = createPublicKey(privateKey).export({ format: 'jwk' });
  return { kid, alg: 'RS256', privateKey, publicJwk: { ...pub, kid, alg: 'RS256', use: 'sig' } };
}

/** The key that signs in a serialized key set: its first RS256 key. */
export function currentSigningKey(keySet: string): SigningKey {
  let doc: unknown;
  try {
    doc = JSON.parse(keySet);
  } catch {
    throw new SigningKeySetError('the signing key set is not JSON');
  }
  const keys = typeof doc === 'object' && doc !== null && Array.isArray((doc as { keys?: unknown }).keys) ? (doc as { keys: unknown[] }).keys : null;
  if (keys === null) throw new SigningKeySetError('the signing key set has no "keys" list');
  const jwk = keys.find((k): k is JsonWebKey & { kid: string } => typeof k === 'object' && k !== null && (k as JsonWebKey).alg === 'RS256');
  if (jwk === undefined) throw new SigningKeySetError('the signing key set has no RS256 key');
  if (typeof jwk.kid !== 'string' || jwk.kid === '') throw new SigningKeySetError('the RS256 signing key has no "kid"');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
  } catch {
    throw new SigningKeySetError(`the RS256 signing key "${jwk.kid}" is not a private JWK`);
  }
  return signingKey(privateKey, jwk.kid);
}
