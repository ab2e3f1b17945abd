import { MAX_JWT_LENGTH } from '../../application/tokens/jwt-verifier';

const BEARER = /^bearer[ \t]+/i;
/** A compact JWS: three base64url segments, the signature possibly empty (`alg: none`, refused later). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*$/;

/**
 * Whether a Bearer value is a workload JWT for the gateway to check (issue 32): a compact JWS whose
 * payload (read without checking anything, at most MAX_JWT_LENGTH characters of it) names in `iss`
 * one of the configured issuers. Any other Bearer value (an opaque token, a JWT of another issuer,
 * one whose payload cannot be read) is the application's own and none of ours: the request goes on
 * without it, as it would without issuers. A JWT of ours longer than MAX_JWT_LENGTH is still ours,
 * and is refused as oversized rather than passed on.
 */
export function isOurJwt(value: string, issuers: ReadonlySet<string>): boolean {
  if (issuers.size === 0 || value.length > 2 * MAX_JWT_LENGTH) return false;
  const shape = COMPACT_JWS.exec(value);
  if (shape === null || shape[1].length > MAX_JWT_LENGTH) return false;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(shape[1], 'base64url').toString('utf8'));
  } catch {
    return false;
  }
  if (typeof payload !== 'object' || payload === null) return false;
  const iss = (payload as { iss?: unknown }).iss;
  return typeof iss === 'string' && issuers.has(iss);
}

/**
 * The workload JWT a request presents in `Authorization: Bearer …` (see isOurJwt), or undefined.
 * Asked only when the request presents no access token of ours: with `Portcullis-Token`, the
 * `Authorization` header is the application's.
 */
export function presentedJwt(authorization: string | undefined, issuers: ReadonlySet<string>): string | undefined {
  if (issuers.size === 0 || authorization === undefined || !BEARER.test(authorization)) return undefined;
  const value = authorization.replace(BEARER, '').trim();
  return isOurJwt(value, issuers) ? value : undefined;
}
