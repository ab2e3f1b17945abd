import { createHash, randomBytes } from 'node:crypto';
import type { Pkce } from '../../application/oauth/pkce';

/** PKCE S256 with node:crypto: 256-bit verifiers (43 base64url characters). */
export class NodeCryptoPkce implements Pkce {
  verifier(): string {
    return randomBytes(32).toString('base64url');
  }
  challenge(verifier: string): string {
    return createHash('sha256').update(verifier, 'ascii').digest('base64url');
  }
}
