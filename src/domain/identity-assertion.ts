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
}

/**
 * The identity source the OpenID Connect `sub` is derived from: an HTTP Basic identity is the
 * same password account as a login on the page, so both must get the same subject.
 */
export function subjectSourceOf(provider: IdentityProvider): string {
  return provider === 'basic' ? 'username' : provider;
}

/** The claims of an assertion of `identity` for the application at `audience`, issued at `nowSeconds`. */
export function assertionClaims(issuer: string, audience: string, subject: string, identity: Identity, nowSeconds: number): AssertionClaims {
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
  };
}
