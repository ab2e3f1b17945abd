import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SessionSealer } from '../../application/ports/session-sealer';
import type { Session } from '../../domain/session';
import { deriveKey } from './key-derivation';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_TOKEN_LENGTH = 8192;

/** The compact shape inside the cookie; short keys keep the cookie small. */
interface Payload {
  i: string;
  u: string;
  n: string;
  e: string;
  g: string[];
  p: string;
  o: 0 | 1;
  t: 0 | 1;
  q: 0 | 1;
  a: number;
  x: number;
}

const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * Seals sessions with AES-256-GCM under a key derived from SECRET. Opened tokens are remembered
 * in a small bounded cache, so the forward-auth hot path decrypts each cookie once, not per request.
 */
export class AesGcmSessionSealer implements SessionSealer {
  private readonly key: Buffer;
  private readonly aad = Buffer.from(`portcullis-session-${VERSION}`);
  private readonly opened = new Map<string, Session>();

  constructor(secret: string, private readonly cacheSize = 10_000) {
    this.key = deriveKey(secret, `session-cookie ${VERSION}`);
  }

  seal(session: Session): string {
    const payload: Payload = {
      i: session.id,
      u: session.username,
      n: session.name,
      e: session.email,
      g: [...session.groups],
      p: session.provider,
      o: session.oauth ? 1 : 0,
      t: session.totp ? 1 : 0,
      q: session.totpPending ? 1 : 0,
      a: session.issuedAt,
      x: session.expiresAt,
    };
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(this.aad);
    const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  unseal(token: string): Session | null {
    const cached = this.opened.get(token);
    if (cached !== undefined) return cached;
    const session = this.open(token);
    if (session !== null) {
      if (this.opened.size >= this.cacheSize) this.opened.delete(this.opened.keys().next().value as string);
      this.opened.set(token, session);
    }
    return session;
  }

  private open(token: string): Session | null {
    if (token.length > MAX_TOKEN_LENGTH || !token.startsWith(`${VERSION}.`)) return null;
    const body = token.slice(VERSION.length + 1);
    const raw = Buffer.from(body, 'base64url');
    // Node's decoder skips characters outside the alphabet and ignores filler bits, so many strings
    // decode alike; only the one canonical spelling opens (each variant would also take a cache slot).
    if (raw.length < IV_BYTES + TAG_BYTES + 2 || raw.toString('base64url') !== body) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(this.aad);
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
      return toSession(JSON.parse(plain.toString('utf8')));
    } catch {
      return null;
    }
  }
}

function toSession(p: Partial<Payload> | null): Session | null {
  if (p === null || typeof p !== 'object') return null;
  if (![p.i, p.u, p.n, p.e, p.p].every(isString) || !Array.isArray(p.g) || !p.g.every(isString)) return null;
  if (typeof p.a !== 'number' || typeof p.x !== 'number') return null;
  return Object.freeze({
    id: p.i as string,
    username: p.u as string,
    name: p.n as string,
    email: p.e as string,
    groups: Object.freeze([...p.g]),
    provider: p.p as string,
    oauth: p.o === 1,
    totp: p.t === 1,
    totpPending: p.q === 1,
    issuedAt: p.a,
    expiresAt: p.x,
  });
}
