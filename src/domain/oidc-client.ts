import type { Identity } from './session';

/**
 * A relying party configured by the administrator (`OIDC_CLIENTS_<ID>_…`). Configured clients are
 * first-party: the person is never asked to consent, only to log in.
 */
export interface OidcClient {
  readonly clientId: string;
  /** Shown on the logout confirmation page; the client id when none was configured. */
  readonly name: string;
  /** The secret itself; null for a public client (no secret; PKCE required) and for one whose secret is configured as a hash. */
  readonly secret: string | null;
  /**
   * The secret as a hash (`OIDC_CLIENTS_<ID>_CLIENT_SECRET_HASH`: bcrypt, Argon2 or PBKDF2, read by
   * readClientSecretHash), with `secret` null; absent for a client configured with its secret or none.
   */
  readonly secretHash?: string;
  /** How a confidential client presents its secret at the token endpoint (ignored for a public client). */
  readonly tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post';
  /** Compared exactly, character for character. */
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris: readonly string[];
  /** Usernames or e-mails (lower-cased) allowed in; empty with empty `allowedGroups`: everyone logged in. */
  readonly allowedUsers: readonly string[];
  readonly allowedGroups: readonly string[];
  /** The scopes the client may be granted ({@link OIDC_SCOPES} by default); asking for another is refused (`invalid_scope`). */
  readonly scopes: readonly OidcScope[];
  /**
   * Where the client takes back-channel logout tokens (OpenID Connect Back-Channel Logout 1.0),
   * and whether it requires `sid` in them; absent: it is not told of logouts.
   */
  readonly backchannelLogout?: { readonly uri: string; readonly sessionRequired: boolean };
  /**
   * The app's page that ends its session in the browser (OpenID Connect Front-Channel Logout 1.0),
   * loaded in a hidden frame at logout, and whether it requires `iss` and `sid`; absent: none.
   */
  readonly frontchannelLogout?: { readonly uri: string; readonly sessionRequired: boolean };
}

/**
 * The URL a front-channel logout frame loads: the client's URI with `iss` and `sid` added to its
 * query (always, when the session had a sid: the specification lets a client that does not require
 * them ignore them). Null when the client requires a sid and none is known.
 */
export function frontchannelLogoutUrl(uri: string, issuer: string, sid: string | null, sessionRequired: boolean): string | null {
  if (sid === null) return sessionRequired ? null : uri;
  const url = new URL(uri);
  url.searchParams.set('iss', issuer);
  url.searchParams.set('sid', sid);
  return url.toString();
}

/** Every scope the provider knows, and the claims each releases are in the provider's table. */
export const OIDC_SCOPES = ['openid', 'offline_access', 'email', 'profile', 'groups'] as const;
export type OidcScope = (typeof OIDC_SCOPES)[number];

export const isOidcScope = (s: string): s is OidcScope => (OIDC_SCOPES as readonly string[]).includes(s);

export const isPublicClient = (client: OidcClient): boolean => client.secret === null && client.secretHash === undefined;

/**
 * Whether `identity` may log in to `client`: no list admits everyone the gateway admits; otherwise
 * a match of the username, the e-mail (both case-insensitive) or one group is required.
 */
export function mayUseClient(client: OidcClient, identity: Identity): boolean {
  if (client.allowedUsers.length === 0 && client.allowedGroups.length === 0) return true;
  const names = new Set([identity.username.toLowerCase(), identity.email.toLowerCase()]);
  if (client.allowedUsers.some((u) => names.has(u.toLowerCase()))) return true;
  const groups = new Set(identity.groups);
  return client.allowedGroups.some((g) => groups.has(g));
}
