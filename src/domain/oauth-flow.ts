/** The OAuth provider kinds Portcullis knows, in the order the UI lists them. */
export const OAUTH_PROVIDER_KINDS = ['github', 'google', 'generic'] as const;
export type OAuthProviderKind = (typeof OAUTH_PROVIDER_KINDS)[number];

export function isOAuthProviderKind(value: string): value is OAuthProviderKind {
  return (OAUTH_PROVIDER_KINDS as readonly string[]).includes(value);
}

/**
 * What an OAuth provider id may look like: the built-in kinds, or the id of a generic provider
 * configured as `OAUTH_PROVIDERS_<ID>_…` (lower case letters, digits and inner hyphens, at most 32).
 * It appears in URLs, cookie contents and `Remote-*`-adjacent logs, so nothing else is allowed.
 */
export const OAUTH_PROVIDER_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/**
 * How a local account's full sessions are made, as the session index records them. An OAuth
 * session is indexed under its provider's id instead, which can never be one of these.
 */
export const LOCAL_LOGIN_METHODS = ['password', 'totp', 'passkey'] as const;

/**
 * Ids a configured generic provider may not take: the built-in kinds (their own options configure
 * them), the identity sources a session already names (`username`, `basic`, `ldap`, `jwt`), so that a
 * session's `provider` never means two things, and the local login methods, so that an indexed
 * session's method tells a local account's sessions from a provider's (the account page lists and
 * ends them by it).
 */
export const RESERVED_OAUTH_PROVIDER_IDS: readonly string[] = [...OAUTH_PROVIDER_KINDS, 'username', 'basic', 'ldap', 'jwt', ...LOCAL_LOGIN_METHODS];

export function isOAuthProviderId(value: string): boolean {
  return OAUTH_PROVIDER_ID_PATTERN.test(value);
}

/** What the client knows of the issuer its authorization request went to (RFC 9207). */
export interface IssuerExpectation {
  /** The issuer identifier, or null when the provider has none the gateway knows. */
  readonly issuer: string | null;
  /** The provider's metadata promises `iss` in every authorization response. */
  readonly required: boolean;
}

/**
 * RFC 9207 section 2.4: the `iss` of an authorization response must be exactly the issuer the
 * request went to; when the issuer promised to send it, its absence is refused too. This is what
 * stops a mix-up attack (a response from one provider presented as another's) before the code
 * is ever sent to a token endpoint. An `iss` from a provider whose issuer is unknown cannot be
 * checked and is ignored (such a provider is told apart by its own callback path).
 */
export function checkIssuer(expected: IssuerExpectation, received: string | undefined): 'ok' | 'mismatch' | 'missing' {
  if (received === undefined) return expected.required ? 'missing' : 'ok';
  if (expected.issuer === null) return 'ok';
  return received === expected.issuer ? 'ok' : 'mismatch';
}

/**
 * One login through an OAuth provider that has started and not yet come back. It lives in a
 * sealed cookie of the browser that started it, so it is bound to that browser. Times are
 * milliseconds since the epoch.
 */
export interface OAuthFlow {
  /** Random id; names the flow's cookies. */
  readonly id: string;
  /** The provider id (a built-in kind or a configured generic provider's id). */
  readonly provider: string;
  /** The `state` sent to the provider (≥ 128 random bits); the callback must bring it back. */
  readonly state: string;
  /** PKCE verifier; only its S256 challenge ever leaves the gateway before the code exchange. */
  readonly codeVerifier: string;
  /** Where to send the person after login; already checked against the protected domain. */
  readonly redirectTarget: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** How long a person may take at the provider. */
export const OAUTH_FLOW_LIFETIME_MS = 10 * 60 * 1000;
/** Live flows one browser may hold (tabs logging in at once); starting another drops the oldest. */
export const MAX_LIVE_OAUTH_FLOWS = 5;

/** Cookie-name suffixes that can name a flow (the id generator's URL-safe ids); other cookies are not even read. */
export const FLOW_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

/** Compares two secrets in time that does not depend on where they first differ. */
export function sameSecret(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
