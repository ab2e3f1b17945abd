import { generateSecret, generateURI } from 'otplib';
import type { TotpSecretIssuer } from '../../application/ports/totp-secret-issuer';

/** Secrets and otpauth:// URIs through otplib, as `portcullis totp enroll` makes them. */
export class OtplibTotpSecretIssuer implements TotpSecretIssuer {
  newSecret(): string {
    return generateSecret();
  }

  uri(issuer: string, label: string, secret: string): string {
    return generateURI({ issuer, label, secret });
  }
}
