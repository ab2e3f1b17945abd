/**
 * Credentials a request presents on its own, instead of a session: HTTP Basic (RFC 7617), already
 * decoded by the HTTP adapter. The only kind today; the `kind` keeps room for others.
 */
export interface BasicCredentials {
  readonly kind: 'basic';
  readonly username: string;
  readonly password: string;
}

export type PresentedCredentials = BasicCredentials;
