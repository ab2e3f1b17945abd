import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { TotpSecretSealer } from '../../application/totp/totp-secret-sealer';
import { deriveKey } from './key-derivation';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_SEALED_LENGTH = 1024;

/**
 * AES-256-GCM under a key derived from SECRET (`totp-secret v1`), with the context (the
 * account's username, or the enrolment it belongs to) as associated data: a sealed secret copied
 * onto another account's row, or an enrolment token replayed for another session, does not open.
 * `v1.<base64url(iv ‖ ciphertext ‖ tag)>`.
 */
export class AesGcmTotpSecretSealer implements TotpSecretSealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = deriveKey(secret, `totp-secret ${VERSION}`);
  }

  seal(context: string, plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  open(context: string, sealed: string): string | null {
    if (sealed.length > MAX_SEALED_LENGTH || !sealed.startsWith(`${VERSION}.`)) return null;
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES + 1) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
