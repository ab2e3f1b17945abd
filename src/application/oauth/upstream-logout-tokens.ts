import type { Result } from '../../domain/result';

/** What a verified back-channel logout token from an upstream provider says. */
export interface UpstreamLogout {
  readonly jti: string;
  readonly sub: string | null;
  readonly sid: string | null;
  /** Until when its `jti` must be remembered as used (ms since the epoch). */
  readonly usedUntil: number;
}

/** Why a logout token was refused (for the audit; the answer is always `invalid_logout_token`). */
export type UpstreamLogoutRefusal =
  | 'unknown_provider'
  | 'malformed'
  | 'bad_signature'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'stale'
  | 'no_event'
  | 'has_nonce'
  | 'no_subject'
  | 'provider_unavailable';

/**
 * Verifies a logout token (OpenID Connect Back-Channel Logout 1.0, section 2.6) from the upstream
 * provider `provider`: its signature against the provider's published keys, `iss`, `aud` (our
 * client id), `iat` fresh, the back-channel logout event, no `nonce`, a `jti`, and `sub` or `sid`.
 */
export interface UpstreamLogoutTokens {
  verify(provider: string, token: string): Promise<Result<UpstreamLogout, UpstreamLogoutRefusal>>;
}
