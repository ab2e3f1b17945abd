import type { OAuthProviderKind } from '../../domain/oauth-flow';

/** The identity an OAuth provider vouches for. Empty strings mean "the provider did not say". */
export interface OAuthIdentity {
  /** Verified e-mail address, or '' when the provider has none it vouches for. */
  readonly email: string;
  readonly name: string;
  /** The provider's login name (GitHub login, `preferred_username`); '' when it has none. */
  readonly username: string;
  readonly groups: readonly string[];
}

/** One configured OAuth2/OIDC provider (GitHub, Google or generic). */
export interface OAuthProvider {
  /** `github`, `google` or `generic`. */
  readonly id: OAuthProviderKind;
  /**
   * The provider's authorization URL for one flow: `response_type=code`, this client's id, the
   * scopes, `state`, `redirectUri` and the PKCE `codeChallenge` (method S256). Pure; never throws
   * for valid input.
   */
  authorizationUrl(input: { state: string; codeChallenge: string; redirectUri: string }): string;
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
