import { createHmac } from 'node:crypto';
import type { VerifiedCredentials } from '../../application/ports/verified-credentials';
import type { BasicCredentials } from '../../domain/credentials';
import { BoundedExpiringMap } from '../state/bounded-map';
import { deriveKey } from './key-derivation';

interface Entry {
  username: string;
  credentialVersion: string;
}

/** Verified Basic credentials in this process, keyed by an HMAC of them so no password is kept. */
export class HmacVerifiedCredentials implements VerifiedCredentials {
  private readonly key: Buffer;
  private readonly entries: BoundedExpiringMap<Entry>;

  constructor(secret: string, capacity = 10_000) {
    this.key = deriveKey(secret, 'basic-cache v1');
    this.entries = new BoundedExpiringMap(capacity);
  }

  keyFor(credentials: BasicCredentials): string {
    // The username's length first, so no other split of the same text gives the same key.
    // One update: each call into the hash costs about as much as the bytes of a short password.
    return createHmac('sha256', this.key).update(`${credentials.username.length}:${credentials.username}${credentials.password}`).digest('base64url');
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
