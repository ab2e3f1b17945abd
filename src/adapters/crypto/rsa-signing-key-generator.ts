import { createHash, createPrivateKey, generateKeyPairSync, type JsonWebKey } from 'node:crypto';

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

/** The RS256 signing JWK of one PEM private key block (see pemBlocks in the domain), named by its thumbprint. */
export function signingJwkOfPem(block: string): SigningJwk {
  return rsaJwk(createPrivateKey(block).export({ format: 'jwk' }));
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
