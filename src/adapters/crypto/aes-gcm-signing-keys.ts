import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SigningKeys } from '../../application/oidc/signing-keys';
import { DatabaseStartError } from '../state/sqlite/sqlite-database';
import { deriveKey } from './key-derivation';

const VERSION = 'k1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The stored signing key set cannot be opened with this SECRET (it was sealed under another one,
 * or the stored value was tampered with). A start-up problem for the operator, reported like any
 * other database problem (one line, exit code 2), never a crash loop with a stack trace.
 */
export class SigningKeysUnreadableError extends DatabaseStartError {
  constructor() {
    super(
      'the OpenID Connect signing key set in the state store cannot be decrypted with this SECRET (it was stored by a gateway with another SECRET, or altered): ' +
        'start with the SECRET it was stored with, or set OIDC_SIGNING_KEY_FILE, or delete the stored key set so a new one is generated (relying parties then fetch the new JWKS; see docs/oidc.md)',
    );
    this.name = 'SigningKeysUnreadableError';
  }
}

/**
 * Seals the signing key set before it reaches the store, with AES-256-GCM under a key derived
 * from SECRET for this purpose only: the private keys are what lets anyone mint ID tokens for
 * every relying party, so a copied database file, Redis dump or backup must not yield them. The
 * stores below only ever see `k1.<base64url(iv ‖ ciphertext ‖ tag)>`. See ADR 0025.
 */
export class AesGcmSigningKeys implements SigningKeys {
  private readonly key: Buffer;
  private readonly aad = Buffer.from(`portcullis-oidc-signing-keys-${VERSION}`);

  constructor(
    private readonly store: SigningKeys,
    secret: string,
  ) {
    this.key = deriveKey(secret, `oidc-signing-keys ${VERSION}`);
  }

  /** Rejects with {@link SigningKeysUnreadableError} when the stored set does not open with this SECRET. */
  async getOrCreate(create: () => string): Promise<string> {
    const sealed = await this.store.getOrCreate(() => this.seal(create()));
    return this.open(sealed);
  }

  async replace(keySet: string): Promise<void> {
    await this.store.replace(this.seal(keySet));
  }

  private seal(keySet: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(this.aad);
    const body = Buffer.concat([cipher.update(keySet, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  private open(sealed: string): string {
    if (!sealed.startsWith(`${VERSION}.`)) throw new SigningKeysUnreadableError();
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SigningKeysUnreadableError();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(this.aad);
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SigningKeysUnreadableError();
    }
  }
}
