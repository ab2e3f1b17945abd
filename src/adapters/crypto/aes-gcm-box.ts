import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from './key-derivation';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_TOKEN_LENGTH = 8192;

/**
 * AES-256-GCM sealing of JSON values, shared by the cookie sealers. A token is
 * `<version>.<base64url(iv ‖ ciphertext ‖ tag)>` over the value's JSON. Each purpose gets its own
 * key (`<purpose>-cookie <version>`) and its own associated data (`portcullis-<purpose>-<version>`),
 * so a token sealed for one purpose never opens as another. Changing any of this breaks every
 * cookie already issued.
 */
export class AesGcmBox {
  private readonly prefix: string;
  private readonly key: Buffer;
  private readonly aad: Buffer;

  constructor(secret: string, purpose: string, version: string) {
    this.prefix = `${version}.`;
    this.key = deriveKey(secret, `${purpose}-cookie ${version}`);
    this.aad = Buffer.from(`portcullis-${purpose}-${version}`);
  }

  seal(value: unknown): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(this.aad);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return this.prefix + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /**
   * The sealed value, or null for anything this box did not seal (wrong version, tampered,
   * malformed). The caller still checks the value's shape.
   */
  open(token: string): unknown {
    if (token.length > MAX_TOKEN_LENGTH || !token.startsWith(this.prefix)) return null;
    const body = token.slice(this.prefix.length);
    const raw = Buffer.from(body, 'base64url');
    // Node's decoder skips characters outside the alphabet and ignores filler bits, so many strings
    // decode alike; only the one canonical spelling opens (a cache keyed by token stays one per value).
    if (raw.length < IV_BYTES + TAG_BYTES + 2 || raw.toString('base64url') !== body) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(this.aad);
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as unknown;
    } catch {
      return null;
    }
  }
}
