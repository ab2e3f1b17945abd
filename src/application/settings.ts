import type { ProtectedDomain } from '../domain/cookie-domain';
import type { LockPolicy } from '../domain/login-failures';
import type { OAuthWhitelist } from '../domain/oauth-whitelist';

/** What the use cases need to know of the configuration, already validated. */
export interface GatewaySettings {
  readonly sessionLifetimeMs: number;
  /** SESSION_IDLE_TIMEOUT (issue 33): a session unused this long ends; 0 or absent: off. */
  readonly idleTimeoutMs?: number;
  /** SESSION_MAX_LIFETIME (issue 33): a session in use is renewed up to its login time plus this; 0 or absent: no renewal. */
  readonly maxLifetimeMs?: number;
  /** REMEMBER_ME_EXPIRY (issue 33): the lifetime of a session made with "Keep me signed in"; 0 or absent: not offered. */
  readonly rememberMeLifetimeMs?: number;
  readonly lock: LockPolicy;
  readonly protectedDomain: ProtectedDomain;
  /**
   * Issue 17: the cookie domains of APP_URL's further gateway URLs, in order. A login needed on an
   * application inside one of them starts that domain's hand-off instead of the login page.
   */
  readonly secondaryDomains?: readonly ProtectedDomain[];
  /** How long a verified HTTP Basic header is trusted without another bcrypt; 0 disables the cache. */
  readonly basicCacheTtlMs: number;
}

/** What the OAuth use cases need, already validated. */
export interface OAuthSettings {
  /** Public URL of the gateway, no trailing slash; callbacks are `${appUrl}/api/oauth/callback/<provider>`. */
  readonly appUrl: string;
  readonly whitelist: OAuthWhitelist;
  /** What one provider demands beyond a verified e-mail, by provider id; a provider without an entry has only the whitelist. */
  readonly policies?: Readonly<Record<string, OAuthProviderPolicy>>;
  /** How long a started flow may take before its callback is refused. */
  readonly flowLifetimeMs: number;
  /** Live flows one browser may hold; starting one more drops the oldest. */
  readonly maxLiveFlows: number;
}

/** One provider's own admission rules. */
export interface OAuthProviderPolicy {
  /** Replaces `OAUTH_WHITELIST` for this provider (`OAUTH_PROVIDERS_<ID>_WHITELIST`). */
  readonly whitelist?: OAuthWhitelist;
  /** The identity must hold at least one of these groups, lower case (`GITHUB_ORGS`: organisation names); empty or absent: no demand. */
  readonly requiredGroups?: readonly string[];
  /** The identity's hosted domain must be one of these, lower case (`GOOGLE_HOSTED_DOMAINS`); empty or absent: no demand. */
  readonly hostedDomains?: readonly string[];
}
