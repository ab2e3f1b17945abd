/** Checks one-time codes (RFC 6238, 30-second steps). */
export interface TotpVerifier {
  /**
   * Verifies `code` for `secret` at time `nowMs`, allowing one step of clock drift either way.
   * Resolves the matched time step, or null when the code is wrong, malformed, or the secret is unusable.
   */
  verify(secret: string, code: string, nowMs: number): Promise<number | null>;
}
