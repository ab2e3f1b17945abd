import type { Awaitable } from '../ports/awaitable';

/**
 * Why a workload's JWT was refused, for the audit (never the token): `malformed` (not a JWS, no
 * exp, a claim of the wrong type), `oversized`, `algorithm` (none, HMAC, or one the issuer is not
 * configured with), `unknown_key` (no key of the issuer's set has its kid and type, even after
 * fetching the set again), `signature`, `issuer`, `audience`, `expired`, `not_yet_valid`, `subject`
 * (the username claim is missing or unusable), `unknown_issuer` (`iss` names no configured issuer).
 */
export type JwtRefusal =
  'malformed' | 'oversized' | 'algorithm' | 'unknown_key' | 'signature' | 'issuer' | 'audience' | 'expired' | 'not_yet_valid' | 'subject' | 'unknown_issuer';

/** What checking a JWT found. */
export type JwtVerification =
  /** Signed by a key of a configured issuer, for its audience, within its lifetime. */
  | {
      readonly ok: true;
      /** The issuer's configured id (`JWT_ISSUERS_<ID>_…`, lower case). */
      readonly issuerId: string;
      /** The username claim's value. */
      readonly subject: string;
      /** The groups claim's values (empty without a groups claim). */
      readonly groups: readonly string[];
      /** `exp`, in milliseconds since the epoch. */
      readonly expiresAt: number;
    }
  | { readonly ok: false; readonly reason: JwtRefusal; readonly issuerId?: string }
  /** The issuer's keys could not be read and none held checks this token: it cannot be checked now. */
  | { readonly ok: false; readonly reason: 'unavailable'; readonly issuerId: string };

/**
 * Checks a workload's JWT against the configured issuers (issue 32): signature by a key of the
 * issuer's key set, `iss`, `aud`, `exp` and `nbf` (with a small leeway), and an allowed asymmetric
 * algorithm. Answers at once when it can; keys come from the issuer and are kept.
 */
export interface JwtVerifier {
  verify(jwt: string): Awaitable<JwtVerification>;
}

/** The longest JWT looked at: anything longer is refused without decoding it. */
export const MAX_JWT_LENGTH = 8192;
