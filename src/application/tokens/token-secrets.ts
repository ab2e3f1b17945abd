/** Makes token secrets and their keyed hashes (issue 32): the store only ever sees the hash. */
export interface TokenSecrets {
  /** A new secret (TOKEN_PREFIX + 256 random bits) and its keyed hash. */
  issue(): { readonly token: string; readonly hash: string };
  /** The keyed hash a presented token is looked up by. */
  hashOf(token: string): string;
}
