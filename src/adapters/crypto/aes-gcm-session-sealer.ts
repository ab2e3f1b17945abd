import type { SessionSealer } from '../../application/ports/session-sealer';
import type { ProvenMethods, SessionMethod } from '../../domain/login-methods';
import type { Session } from '../../domain/session';
import { AesGcmBox } from './aes-gcm-box';

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
  /** The credential fingerprint; absent for OAuth sessions. */
  c?: string;
  /** When each method was proven (issue 33): `p` password, `t` TOTP, `k` passkey, `o` OAuth. Absent in cookies sealed before. */
  f?: Partial<Record<'p' | 't' | 'k' | 'o', number>>;
  /** 1: made with "Keep me signed in" (issue 33). */
  m?: 1;
  /** Renewable until (issue 33); absent: not renewable. */
  r?: number;
}

const PROVEN_KEYS = [
  ['password', 'p'],
  ['totp', 't'],
  ['passkey', 'k'],
  ['oauth', 'o'],
] as const;

function packProven(proven: ProvenMethods): Payload['f'] {
  const f: NonNullable<Payload['f']> = {};
  for (const [method, key] of PROVEN_KEYS) {
    const at = proven[method];
    if (at !== undefined) f[key] = at;
  }
  return f;
}

/** The proofs of a payload; a cookie sealed before issue 33 proves nothing a per-path requirement could count (a step-up is asked). */
function unpackProven(f: unknown): ProvenMethods | null {
  if (f === undefined) return Object.freeze({});
  if (f === null || typeof f !== 'object') return null;
  const out: Partial<Record<SessionMethod, number>> = {};
  for (const [method, key] of PROVEN_KEYS) {
    const at = (f as Record<string, unknown>)[key];
    if (at === undefined) continue;
    if (typeof at !== 'number' || !Number.isFinite(at)) return null;
    out[method] = at;
  }
  return Object.freeze(out);
}

const isString = (v: unknown): v is string => typeof v === 'string';

/** How many characters end a token: its GCM tag (16 bytes, 22 base64url characters), which no one can choose without the key. */
const TAG_CHARS = 22;

interface Opened {
  readonly token: string;
  readonly session: Session;
}

/**
 * Seals sessions with AES-256-GCM under a key derived from SECRET. Opened tokens are remembered
 * in a small bounded cache, so the forward-auth hot path decrypts each cookie once, not per request.
 *
 * The cache is keyed by the token's last characters (its authentication tag), and a hit still
 * compares the whole token: every request brings its cookie as a fresh string, and a Map keyed by
 * the whole token hashed all of its 300-odd characters each time (the largest share of the cookie
 * check's own CPU time). Comparing is far cheaper than hashing. Two tokens ending alike are
 * simply a miss: the newcomer is opened (and, forged, refused) like any other.
 */
export class AesGcmSessionSealer implements SessionSealer {
  private readonly box: AesGcmBox;
  private readonly opened = new Map<string, Opened>();

  constructor(
    secret: string,
    private readonly cacheSize = 10_000,
  ) {
    this.box = new AesGcmBox(secret, 'session', 'v1');
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
      f: packProven(session.proven),
    };
    if (session.credential !== undefined) payload.c = session.credential;
    if (session.remember === true) payload.m = 1;
    if (session.renewableUntil !== undefined) payload.r = session.renewableUntil;
    return this.box.seal(payload);
  }

  unseal(token: string): Session | null {
    const tag = token.slice(-TAG_CHARS);
    const cached = this.opened.get(tag);
    if (cached !== undefined && cached.token === token) return cached.session;
    const session = toSession(this.box.open(token));
    if (session !== null) {
      if (cached === undefined && this.opened.size >= this.cacheSize) this.opened.delete(this.opened.keys().next().value as string);
      this.opened.set(tag, { token, session });
    }
    return session;
  }
}

function toSession(value: unknown): Session | null {
  if (value === null || typeof value !== 'object') return null;
  const p = value as Partial<Payload>;
  if (![p.i, p.u, p.n, p.e, p.p].every(isString) || !Array.isArray(p.g) || !p.g.every(isString)) return null;
  if (typeof p.a !== 'number' || typeof p.x !== 'number') return null;
  if (p.c !== undefined && !isString(p.c)) return null;
  if (p.r !== undefined && (typeof p.r !== 'number' || !Number.isFinite(p.r))) return null;
  const proven = unpackProven(p.f);
  if (proven === null) return null;
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
    ...(p.c !== undefined ? { credential: p.c } : {}),
    proven,
    ...(p.m === 1 ? { remember: true as const } : {}),
    ...(p.r !== undefined ? { renewableUntil: p.r } : {}),
  });
}
