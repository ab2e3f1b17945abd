import type { TotpSecretIssuer } from '../../application/totp/totp-secret-issuer';

/**
 * Secrets and otpauth:// URIs through otplib, as `portcullis totp enroll` makes them. otplib comes
 * from composition's loader (ADR 0015, ADR 0034): it loads with the first set-up, not at start.
 */
export class OtplibTotpSecretIssuer implements TotpSecretIssuer {
  constructor(private readonly otplib: () => Pick<typeof import('otplib'), 'generateSecret' | 'generateURI'>) {}

  newSecret(): string {
    return this.otplib().generateSecret();
  }

  uri(issuer: string, label: string, secret: string): string {
    return this.otplib().generateURI({ issuer, label, secret });
  }
}
