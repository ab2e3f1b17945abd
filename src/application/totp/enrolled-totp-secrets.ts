/**
 * The TOTP secrets people set up themselves on the account page (issue 16), one per account, in
 * the durable store. An administrator's secret (USERS, the users file, LDAP) is never kept here.
 *
 * {@link secretOf} is asked on every request that reads an account (forward auth included), so
 * it answers from this replica's memory at once; the adapters keep that memory right on every
 * replica (ADR 0031). Writes reject with StateStoreUnavailableError when the store cannot take them.
 */
export interface EnrolledTotpSecrets {
  /**
   * The base32 secret `username` (exact spelling, as the user store gives it) set up, or null.
   * Throws StateStoreUnavailableError while this replica cannot tell yet (it has not loaded the
   * shared store once): the caller must fail closed then, never treat the account as having none.
   */
  secretOf(username: string): string | null;

  /** Stores `secret` for `username`. Resolves false and stores nothing when the account has one already. */
  enrol(username: string, secret: string): Promise<boolean>;

  /** Removes the secret of `username` while it is still `secret` (compare and delete); false otherwise. */
  remove(username: string, secret: string): Promise<boolean>;
}
