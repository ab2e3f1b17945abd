import { readPasswordHash, SUPPORTED_HASHES, type PasswordHashParameters } from './password-hash';

/**
 * The hashes an OpenID Connect client's secret may be configured as (`OIDC_CLIENTS_<ID>_CLIENT_SECRET_HASH`):
 * every password hash a local account may hold (bcrypt, `$argon2id$`, `$argon2i$`) and the PBKDF2
 * modular crypt form Authelia and passlib write: `$pbkdf2$<iterations>$<salt>$<key>` (HMAC-SHA1),
 * `$pbkdf2-sha256$…` and `$pbkdf2-sha512$…`, with salt and key in "adapted base64" (`.` for `+`,
 * no padding). Reading one checks its form and bounds its cost; nothing here computes a hash.
 */

export type Pbkdf2Digest = 'sha1' | 'sha256' | 'sha512';

export type Pbkdf2Hash = {
  readonly kind: 'pbkdf2';
  readonly digest: Pbkdf2Digest;
  readonly iterations: number;
  /** The salt's bytes as standard base64 (adapted base64's `.` turned back into `+`). */
  readonly salt: string;
  /** The derived key's bytes as standard base64; its length is the length to derive. */
  readonly key: string;
};

export type ClientSecretHash = PasswordHashParameters | Pbkdf2Hash;

export type ReadClientSecretHashResult = { readonly ok: true; readonly hash: ClientSecretHash } | { readonly ok: false; readonly problem: string };

/**
 * The bounds of a PBKDF2 hash. Two million iterations: OWASP's advice for HMAC-SHA1 (1.3 million)
 * fits, and Authelia's default (SHA-512, 310 000) with room; each check of a hash at the bound
 * takes about two seconds of one core, so a configuration cannot make every token request cost
 * more. Salt of 8 to 64 bytes (Authelia and passlib write 16), key of 16 to 64 bytes.
 */
export const PBKDF2_LIMITS = {
  minIterations: 1000,
  maxIterations: 2_000_000,
  minSaltBytes: 8,
  maxSaltBytes: 64,
  minKeyBytes: 16,
  maxKeyBytes: 64,
} as const;

/** What the supported kinds are, as problems say it. */
export const SUPPORTED_CLIENT_SECRET_HASHES =
  'a bcrypt ($2a$, $2b$, $2y$), Argon2 ($argon2id$, $argon2i$) or PBKDF2 ($pbkdf2$, $pbkdf2-sha256$, $pbkdf2-sha512$) hash';

const PBKDF2 = /^\$pbkdf2(?:-(sha256|sha512))?\$(\d{1,10})\$([A-Za-z0-9./]*)\$([A-Za-z0-9./]*)$/;

/** Bytes an unpadded base64 text stands for, or null when no byte string has that length. */
function base64Bytes(text: string): number | null {
  return text.length % 4 === 1 ? null : Math.floor((text.length * 3) / 4);
}

/** Adapted base64 (passlib's `ab64`) as standard base64 with its padding. */
function standardBase64(adapted: string): string {
  const text = adapted.replace(/\./g, '+');
  return text + '='.repeat((4 - (text.length % 4)) % 4);
}

function readPbkdf2(hash: string): ReadClientSecretHashResult {
  const match = PBKDF2.exec(hash);
  if (match === null) return { ok: false, problem: 'malformed PBKDF2 hash; it must look like $pbkdf2-sha512$310000$salt$key (salt and key in adapted base64)' };
  const [, variant, iterationText, salt, key] = match;
  const digest: Pbkdf2Digest = variant === 'sha256' || variant === 'sha512' ? variant : 'sha1';
  const iterations = Number(iterationText);
  const L = PBKDF2_LIMITS;
  if (iterations < L.minIterations || iterations > L.maxIterations)
    return { ok: false, problem: `PBKDF2 iterations ${iterations} are outside ${L.minIterations} to ${L.maxIterations}` };
  const saltBytes = base64Bytes(salt);
  if (saltBytes === null || saltBytes < L.minSaltBytes || saltBytes > L.maxSaltBytes)
    return { ok: false, problem: `PBKDF2 salt must be ${L.minSaltBytes} to ${L.maxSaltBytes} bytes of adapted base64` };
  const keyBytes = base64Bytes(key);
  if (keyBytes === null || keyBytes < L.minKeyBytes || keyBytes > L.maxKeyBytes)
    return { ok: false, problem: `PBKDF2 key must be ${L.minKeyBytes} to ${L.maxKeyBytes} bytes of adapted base64` };
  return { ok: true, hash: { kind: 'pbkdf2', digest, iterations, salt: standardBase64(salt), key: standardBase64(key) } };
}

/**
 * Reads a client secret's hash: its kind and cost, or a problem that names the kind (never the hash).
 */
export function readClientSecretHash(hash: string): ReadClientSecretHashResult {
  if (/^\$pbkdf2(-[a-z0-9]+)?\$/.test(hash)) {
    if (!/^\$pbkdf2(-sha256|-sha512)?\$/.test(hash))
      return { ok: false, problem: `a PBKDF2 hash of another digest cannot be verified; it must be ${SUPPORTED_CLIENT_SECRET_HASHES}` };
    return readPbkdf2(hash);
  }
  const read = readPasswordHash(hash);
  if (read.ok) return read;
  return { ok: false, problem: read.problem.replace(/^password must be/, 'it must be').replace(SUPPORTED_HASHES, SUPPORTED_CLIENT_SECRET_HASHES) };
}
