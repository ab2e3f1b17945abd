/**
 * A user store that sends no change notices (LDAP), asked in bulk which accounts it no longer
 * holds, so that a person deleted or disabled there is signed out everywhere (issue 35).
 */
export interface DirectoryAccounts {
  /**
   * Of `usernames`, those the store no longer holds as people who may log in (deleted, or no
   * longer matched by its search filter), lower-cased. Names it is not responsible for (held by a
   * store before it) are never answered. Rejects with UserStoreUnavailableError when it cannot
   * tell, for any of them: an outage must never pass for a removal.
   */
  absent(usernames: readonly string[]): Promise<string[]>;
}
