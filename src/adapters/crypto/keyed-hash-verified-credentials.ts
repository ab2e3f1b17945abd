import { hash } from 'node:crypto';
import type { VerifiedCredentials } from '../../application/ports/verified-credentials';
import type { BasicCredentials } from '../../domain/credentials';
import { BoundedExpiringMap } from '../state/bounded-map';
import { deriveKey } from './key-derivation';

interface Entry {
  username: string;
  credentialVersion: string;
}

/**
 * Verified Basic credentials in this process, keyed by a keyed hash of them so no password is
 * kept: SHA-512/256 over a secret prefix (a key derived from SECRET) and the credentials.
 *
 * Why not HMAC (which this was): every cached Basic request computes this key, and `createHmac`
 * builds a native object per call whose clean-up the garbage collector pays for later; under
 * load that cost about 6 µs per request (benchmark scenario 2), three times the hash itself. The
 * one-shot `crypto.hash` allocates nothing native. A secret-prefix hash is a sound keyed hash
 * with SHA-512/256, which (unlike SHA-256) cannot be length-extended; and the key never leaves
 * this process anyway (it is only ever a Map key).
 */
export class KeyedHashVerifiedCredentials implements VerifiedCredentials {
  /** The key as text, ended by a separator it cannot contain (base64url has no newline). */
  private readonly prefix: string;
  private readonly entries: BoundedExpiringMap<Entry>;

  constructor(secret: string, capacity = 10_000) {
    this.prefix = `${deriveKey(secret, 'basic-cache v2').toString('base64url')}\n`;
    this.entries = new BoundedExpiringMap(capacity);
  }

  keyFor(credentials: BasicCredentials): string {
    // The username's length first, so no other split of the same text gives the same key.
    return hash('sha512-256', `${this.prefix}${credentials.username.length}:${credentials.username}${credentials.password}`, 'base64url');
  }

  get(key: string, nowMs: number): Entry | null {
    return this.entries.get(key, nowMs) ?? null;
  }

  put(key: string, value: Entry, nowMs: number, ttlMs: number): void {
    this.entries.set(key, { username: value.username, credentialVersion: value.credentialVersion }, nowMs + ttlMs);
  }

  forgetUser(username: string): void {
    const wanted = username.toLowerCase();
    for (const key of [...this.entries.keys()]) {
      const entry = this.entries.get(key, 0);
      if (entry !== undefined && entry.username.toLowerCase() === wanted) this.entries.delete(key);
    }
  }
}
