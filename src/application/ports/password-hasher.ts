/** One-way password hashing (bcrypt). Implementations must not block the event loop. */
export interface PasswordHasher {
  /** Resolves true only when `password` matches `hash`; a malformed hash resolves false, never throws. */
  verify(password: string, hash: string): Promise<boolean>;
  /** Hashes a password for storage. */
  hash(password: string): Promise<string>;
  /**
   * Does the work of one verify against a hash nobody owns and resolves false, so that an unknown
   * account costs the same time as a wrong password.
   */
  verifyDecoy(password: string): Promise<false>;
}
