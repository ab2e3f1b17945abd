/** One app a gateway session logged in to through the provider: what its logout token names, and the grant its tokens hang on. */
export interface OidcSessionLogin {
  readonly clientId: string;
  /** The `sub` the app knows the person by. */
  readonly subject: string;
  /** The `sid` the app's ID tokens carry; null when none was issued. */
  readonly sid: string | null;
  /** The provider's grant the app's tokens (refresh tokens included) were issued under; null when unknown. */
  readonly grantId: string | null;
}

/**
 * Which apps each gateway session logged in to, so that when the session ends, however it ends,
 * those apps are told (back-channel logout) and their tokens from it end. Shared by every replica
 * where the store is; entries may be forgotten once the session would have expired.
 */
export interface OidcSessionLogins {
  /** Notes that session `sessionId` logged in to `login.clientId` (a later login to the same client replaces it), kept until `untilMs`. */
  add(sessionId: string, login: OidcSessionLogin, untilMs: number): Promise<void>;
  /** The apps session `sessionId` logged in to, forgotten as they are read: a session ends once. */
  take(sessionId: string): Promise<OidcSessionLogin[]>;
}
