import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';

export interface VerifiedJwt {
  readonly header: Record<string, unknown>;
  readonly claims: Record<string, unknown>;
}

/**
 * Verifies a compact RS256 JWT the way a relying party does with a JWKS: the header's `kid`
 * picks the key, `alg` must be RS256, the signature must hold. Throws on any failure. Only
 * node:crypto, independent of the jose the gateway verifies workload JWTs with.
 */
export function verifyRs256(token: string, jwks: { keys: readonly JsonWebKey[] }): VerifiedJwt {
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error('not a compact JWS');
  const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as Record<string, unknown>;
  if (header.alg !== 'RS256') throw new Error(`unexpected alg ${String(header.alg)}`);
  const jwk = jwks.keys.find((k) => (k as { kid?: unknown }).kid === header.kid);
  if (jwk === undefined) throw new Error(`no key ${String(header.kid)} in the JWKS`);
  const ok = verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(parts[2], 'base64url'));
  if (!ok) throw new Error('bad signature');
  return { header, claims: JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown> };
}

/** The claims of a JWT without checking anything (for tests that look at a forged or foreign token). */
export function unverifiedClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}
