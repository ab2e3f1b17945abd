/** Proof Key for Code Exchange (RFC 7636), method S256. */
export interface Pkce {
  /** A fresh random code verifier: 43 to 128 unreserved characters, at least 256 bits of entropy. */
  verifier(): string;
  /** The S256 challenge for `verifier`: base64url(SHA-256(verifier)) without padding. */
  challenge(verifier: string): string;
}
