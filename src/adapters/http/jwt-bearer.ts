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
  return new JwtBearers(issuers).presented(authorization);
}

/** Characters of Bearer values whose reading is remembered (about 2 MB); the memo is emptied when full. */
export const REMEMBERED_CHARACTERS = 2 * 1024 * 1024;

/**
 * presentedJwt for one set of issuers, remembering what it found for each Bearer value: a workload
 * sends the same JWT on every request until it expires, and decoding its payload to read `iss` was
 * a third of the cost of such a request (bench scenario 2c). Only whether the value names one of
 * our issuers is remembered, a function of the text alone; the token is verified (or its cached
 * verification checked against `exp`) by the application on every request as before. Bounded by
 * the characters held, so made-up tokens cannot grow it.
 */
export class JwtBearers {
  private readonly read = new Map<string, boolean>();
  private characters = 0;

  constructor(private readonly issuers: ReadonlySet<string>) {}

  presented(authorization: string | undefined): string | undefined {
    if (this.issuers.size === 0 || authorization === undefined || !BEARER.test(authorization)) return undefined;
    const value = authorization.replace(BEARER, '').trim();
    // Never ours (see isOurJwt), and too long to be worth remembering.
    if (value.length > 2 * MAX_JWT_LENGTH) return undefined;
    let ours = this.read.get(value);
    if (ours === undefined) {
      ours = isOurJwt(value, this.issuers);
      if (this.characters + value.length > REMEMBERED_CHARACTERS) {
        this.read.clear();
        this.characters = 0;
      }
      this.read.set(value, ours);
      this.characters += value.length;
    }
    return ours ? value : undefined;
  }
}
