/** The OAuth provider kinds Portcullis knows, in the order the UI lists them. */
export const OAUTH_PROVIDER_KINDS = ['github', 'google', 'generic'] as const;
export type OAuthProviderKind = (typeof OAUTH_PROVIDER_KINDS)[number];

export function isOAuthProviderKind(value: string): value is OAuthProviderKind {
  return (OAUTH_PROVIDER_KINDS as readonly string[]).includes(value);
}

/**
 * One login through an OAuth provider that has started and not yet come back. It lives in a
 * sealed cookie of the browser that started it, so it is bound to that browser. Times are
 * milliseconds since the epoch.
 */
export interface OAuthFlow {
  /** Random id; names the flow's cookies. */
  readonly id: string;
  readonly provider: OAuthProviderKind;
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
