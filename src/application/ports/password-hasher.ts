/**
 * Thrown when so many checks are already waiting that this one would wait longer than a client
 * should: the caller answers "unavailable, try again", never "wrong password".
 */
export class PasswordHasherBusyError extends Error {
  constructor() {
    super('password hasher busy');
    this.name = 'PasswordHasherBusyError';
  }
}

/**
 * One-way password hashing (bcrypt, and Argon2 for accounts kept from Authelia). Implementations
 * must not block the event loop.
 *
 * `requester` says who is asking (the client's address block, an opaque string): when checks have
 * to wait, implementations share the waiting line fairly between requesters, so that one client
 * cannot take every place. Checks without one share a line of their own.
 */
export interface PasswordHasher {
  /**
   * Resolves true only when `password` matches `hash`; a malformed hash resolves false.
   * Rejects only with {@link PasswordHasherBusyError} when overloaded.
   */
  verify(password: string, hash: string, requester?: string): Promise<boolean>;
  /** Hashes a password for storage. */
  hash(password: string): Promise<string>;
  /**
   * Does the work of one verify against a hash nobody owns and resolves false, so that an unknown
   * account costs the same time as a wrong password.
   */
  verifyDecoy(password: string, requester?: string): Promise<false>;
}
