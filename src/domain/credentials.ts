/**
 * Credentials a request presents on its own, instead of a session: HTTP Basic (RFC 7617), already
 * decoded by the HTTP adapter. The only kind today; the `kind` keeps room for others.
 */
export interface BasicCredentials {
  readonly kind: 'basic';
  readonly username: string;
  readonly password: string;
  /**
   * The credentials as the client encoded them (the header's base64 text), when the adapter kept
   * it: one text always decodes to the same username and password, so a cache of verified
   * credentials may key on it and answer without decoding (two encodings of the same pair are
   * two entries, never a wrong answer).
   */
  readonly encoded?: string;
}

export type PresentedCredentials = BasicCredentials;
