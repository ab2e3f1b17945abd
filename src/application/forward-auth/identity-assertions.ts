import type { ProvenMethods } from '../../domain/login-methods';
import type { Identity } from '../../domain/session';
import type { Awaitable } from '../ports/awaitable';

/**
 * Signed identity assertions for forward-auth upstreams (see domain/identity-assertion.ts),
 * signed with the OpenID Connect provider's current key so they verify against its JWKS.
 */
export interface IdentityAssertions {
  /**
   * A compact JWT asserting `identity` to the application at `audience` (its host name, lower
   * case, no port): `iss` = APP_URL, `aud`, `sub` (the provider's subject of the account),
   * `email`, `name`, `preferred_username`, `groups`, `iat`, `exp` at most five minutes later, and
   * for a session `proven` (what it proved and when): `amr`, `auth_time` and `acr`.
   * Answers at once, from memory: the same assertion while it has more than a minute left, so
   * signing happens once per identity, proof and application, not per request; a session that
   * stepped up (proved more, or again) gets a new one at once. Only the first request
   * after start waits (a promise) while the signing key is read. Null when the key cannot be read;
   * callers refuse rather than pass the request without an assertion.
   */
  assertionFor(identity: Identity, audience: string, proven?: ProvenMethods): Awaitable<string | null>;
}
