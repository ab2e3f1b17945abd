/**
 * Encrypts TOTP secrets with a key derived from SECRET: at rest in the durable store, and inside
 * the token that carries a secret between the start of an enrolment and its confirmation.
 */
export interface TotpSecretSealer {
  /** `plaintext` sealed for `context` (e.g. the account's username): it opens for that context only. */
  seal(context: string, plaintext: string): string;

  /** The plaintext, or null when `sealed` was not sealed by this key for `context` (tampered, moved, malformed). */
  open(context: string, sealed: string): string | null;
}
