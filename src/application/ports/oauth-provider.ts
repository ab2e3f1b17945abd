import type { IssuerExpectation, OAuthProviderKind } from '../../domain/oauth-flow';

/** The identity an OAuth provider vouches for. Empty strings mean "the provider did not say". */
export interface OAuthIdentity {
  /** Verified e-mail address, or '' when the provider has none it vouches for. */
  readonly email: string;
  readonly name: string;
  /** The provider's login name (GitHub login, `preferred_username`); '' when it has none. */
  readonly username: string;
  readonly groups: readonly string[];
  /** The Google Workspace domain (`hd` claim) the account belongs to; '' or absent when none. */
  readonly hostedDomain?: string;
  /**
   * The provider's own `sub` and session id (`sid`) from its ID token, when it is an OpenID Connect
   * provider with an issuer: what its back-channel logout tokens name (issue 35).
   */
  readonly upstream?: { readonly sub: string; readonly sid: string | null };
}

/** One configured OAuth2/OIDC provider (GitHub, Google or generic). */
export interface OAuthProvider {
  /** `github`, `google`, `generic`, or the id of a generic provider configured as `OAUTH_PROVIDERS_<ID>_…`. */
  readonly id: string;
  /** Which adapter it is. */
  readonly kind: OAuthProviderKind;
  /** How the login page names it (`Continue with <name>`). */
  readonly name: string;
  /**
   * The provider's authorization URL for one flow: `response_type=code`, this client's id, the
   * scopes, `state`, `redirectUri` and the PKCE `codeChallenge` (method S256). Rejects with
   * {@link OAuthProviderError} only, when the provider's metadata (OIDC discovery) cannot be read.
   */
  authorizationUrl(input: { state: string; codeChallenge: string; redirectUri: string }): Promise<string>;
  /**
   * The issuer an authorization response must name in `iss` (RFC 9207), and whether the provider
   * promised to send it. Rejects with {@link OAuthProviderError} only, like {@link authorizationUrl}.
   */
  issuer(): Promise<IssuerExpectation>;
  /**
   * Exchanges `code` (with the PKCE verifier and the same `redirectUri`) for a token and reads who
   * logged in. Every call to the provider has a bounded timeout.
   * Rejects with {@link OAuthProviderError} only: `refused` when the provider turns the code down,
   * `unreachable` when it cannot be reached, times out or fails (5xx), `invalid_response` when
   * it answers something that is not what its API promises.
   */
  identify(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<OAuthIdentity>;
}

export type OAuthProviderFailure = 'refused' | 'unreachable' | 'invalid_response';

/** Why a provider call failed; its message names the provider and the reason, never a token or secret. */
export class OAuthProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly reason: OAuthProviderFailure,
    options?: { cause?: unknown },
  ) {
    super(`oauth provider ${provider}: ${reason}`, options);
    this.name = 'OAuthProviderError';
  }
}
