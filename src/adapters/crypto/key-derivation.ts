import { hkdfSync } from 'node:crypto';

/** Derives a 32-byte key for one purpose from the configured SECRET (HKDF-SHA256), so no two uses share a key. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.from('portcullis', 'utf8'), Buffer.from(purpose, 'utf8'), 32));
}
