/** The identity an OAuth provider vouches for. */
export interface OAuthIdentity {
  readonly email: string;
  readonly name: string;
  readonly username: string;
  readonly groups: readonly string[];
}

/** One configured OAuth2/OIDC provider (GitHub, Google or generic). */
export interface OAuthProvider {
  /** `github`, `google` or `generic`. */
  readonly id: string;
  /** Builds the authorization URL for a flow with this `state` and PKCE `codeChallenge` (S256). */
  authorizationUrl(input: { state: string; codeChallenge: string; redirectUri: string }): string;
  /**
   * Exchanges `code` (with the PKCE verifier) and reads who logged in.
   * Rejects with {@link OAuthProviderError} when the provider refuses or answers junk.
   */
  identify(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<OAuthIdentity>;
}

export class OAuthProviderError extends Error {
  constructor(readonly provider: string, readonly reason: 'refused' | 'unreachable' | 'invalid_response', options?: { cause?: unknown }) {
    super(`oauth provider ${provider}: ${reason}`, options);
    this.name = 'OAuthProviderError';
  }
}

/** The providers that are configured, by id. */
export interface OAuthProviders {
  /** The provider with this id, or null when it is not configured. */
  get(id: string): OAuthProvider | null;
  /** Ids of configured providers, in the order github, google, generic. */
  ids(): readonly string[];
}
