/**
 * The OpenID Connect `sub` of an account: stable for the account, opaque, and never the e-mail
 * (which can change, and which another account may get later).
 */
export interface SubjectIdentifiers {
  /**
   * The subject of the account `username` of identity source `source` (`username` for USERS and
   * USERS_FILE, `ldap`, or an OAuth provider id). Deterministic: the same inputs always give the
   * same subject, on every replica and after restarts; different inputs never give the same one.
   */
  subjectOf(source: string, username: string): string;
}
