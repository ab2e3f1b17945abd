import { acrOf, amrOf, lastProven, type AuthenticationContext, type ProvenMethods } from './login-methods';
import type { Identity, IdentityProvider } from './session';

/**
 * The signed identity assertion an access rule may ask for (`response.assertion: true`): a short
 * JWT in the `Remote-Assertion` header of the forward-auth answer, which the proxy passes to the
 * upstream, so an application can check who is calling against the provider's JWKS instead of
 * trusting plain `Remote-*` headers blindly.
 */

/** The response header (lower case, as the forward-auth answer writes every header). */
export const ASSERTION_HEADER = 'remote-assertion';
/** Longest an assertion is valid: five minutes (issue 15). */
export const ASSERTION_LIFETIME_SECONDS = 300;
/**
 * A cached assertion is signed anew once it has less than this left, so an upstream always
 * receives one valid for at least a minute (clock skew, a slow request) and the gateway signs at
 * most once per identity and application every four minutes.
 */
export const ASSERTION_RENEW_BEFORE_SECONDS = 60;

export interface AssertionClaims {
  readonly iss: string;
  readonly aud: string;
  readonly sub: string;
  readonly email: string;
  readonly name: string;
  readonly preferred_username: string;
  readonly groups: readonly string[];
  readonly iat: number;
  readonly exp: number;
  /** How the session proved who it is (RFC 8176); absent for a caller with no proven methods (Basic, a token, a JWT). */
  readonly amr?: readonly string[];
  /** When it last proved it (seconds), as OpenID Connect's `auth_time`; absent with `amr`. */
  readonly auth_time?: number;
  /** `sfa`, `mfa` or `phr` (see acrOf); absent with `amr`. */
  readonly acr?: AuthenticationContext;
}

/**
 * The identity source the OpenID Connect `sub` is derived from: an HTTP Basic identity is the
 * same password account as a login on the page, so both must get the same subject.
 */
export function subjectSourceOf(provider: IdentityProvider): string {
  return provider === 'basic' ? 'username' : provider;
}

/**
 * The `amr`, `auth_time` and `acr` of a session that proved `proven` (issue 33), or an empty object
 * when it proved nothing: HTTP Basic, access tokens and JWTs, and a cookie sealed before issue 33.
 */
export function provenClaims(proven: ProvenMethods | undefined): Pick<AssertionClaims, 'amr' | 'auth_time' | 'acr'> {
  const last = proven === undefined ? null : lastProven(proven);
  if (proven === undefined || last === null) return {};
  return { amr: amrOf(proven), auth_time: Math.floor(last / 1000), acr: acrOf(proven) };
}

/**
 * Which methods `proven` holds, as bits (password 1, TOTP 2, passkey 4, OAuth 8; 0 for none): with
 * {@link lastProven}, everything {@link provenClaims} is made from, for a cache key that needs no
 * string of its own.
 */
export function provenMask(proven: ProvenMethods | undefined): number {
  if (proven === undefined) return 0;
  return (
    (proven.password === undefined ? 0 : 1) |
    (proven.totp === undefined ? 0 : 2) |
    (proven.passkey === undefined ? 0 : 4) |
    (proven.oauth === undefined ? 0 : 8)
  );
}

/**
 * The claims of an assertion of `identity` for the application at `audience`, issued at
 * `nowSeconds`; `proven` is what its session proved (undefined for any other caller).
 */
export function assertionClaims(
  issuer: string,
  audience: string,
  subject: string,
  identity: Identity,
  nowSeconds: number,
  proven: ProvenMethods | undefined,
): AssertionClaims {
  return {
    iss: issuer,
    aud: audience,
    sub: subject,
    email: identity.email,
    name: identity.name,
    preferred_username: identity.username,
    groups: [...identity.groups],
    iat: nowSeconds,
    exp: nowSeconds + ASSERTION_LIFETIME_SECONDS,
    ...provenClaims(proven),
  };
}
