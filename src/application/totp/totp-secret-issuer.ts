/** Makes new TOTP secrets and the otpauth:// URIs authenticator apps read from a QR code. */
export interface TotpSecretIssuer {
  /** A new random base32 secret (160 bits, RFC 4226's recommendation). */
  newSecret(): string;

  /** The `otpauth://totp/...` URI of `secret` for `label` (the account) under `issuer` (the gateway's title). */
  uri(issuer: string, label: string, secret: string): string;
}
