import { pbkdf2, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { PasswordHasherBusyError, type PasswordHasher } from '../../application/ports/password-hasher';
import { readClientSecretHash, type Pbkdf2Hash } from '../../domain/client-secret-hash';
import { ConcurrencyLimiter, QueueFullError } from './concurrency-limiter';
import { defaultBcryptConcurrency } from './native-password-hasher';

const pbkdf2Async = promisify(pbkdf2);

/** Longer presented secrets are refused outright, as long passwords are: they only add work. */
const MAX_SECRET_BYTES = 1024;

export interface HashedClientSecretsOptions {
  /** PBKDF2 computations at once; the rest wait their turn. */
  readonly concurrency?: number;
  /** PBKDF2 checks that may wait; past that a check is refused with PasswordHasherBusyError. */
  readonly maxQueued?: number;
}

/**
 * Checks a secret an OpenID Connect client presents against the hash it is configured with
 * (readClientSecretHash): bcrypt and Argon2 through the password hasher, in its bounded fair line
 * like any password; PBKDF2 through node's asynchronous `pbkdf2` (libuv's thread pool, off the
 * event loop) in a line of its own, bounded the same way, compared in constant time.
 */
export class HashedClientSecrets {
  private readonly limiter: ConcurrencyLimiter;

  constructor(
    private readonly hasher: PasswordHasher,
    options: HashedClientSecretsOptions = {},
  ) {
    // A flood of token requests with a known client id queues here; each slot rests as long as its
    // hash took, as the password hasher's do, so the event loop keeps its share of the machine.
    this.limiter = new ConcurrencyLimiter(options.concurrency ?? defaultBcryptConcurrency(), options.maxQueued ?? 64, {
      restRatio: 1,
      now: () => performance.now(),
      later: (fn, ms) => setTimeout(fn, ms).unref(),
    });
  }

  /**
   * Resolves true only when `presented` is the secret `hash` was made of; a malformed hash, or one
   * of a kind or cost the configuration refuses, resolves false. Rejects only with
   * PasswordHasherBusyError when the line is full. `requester` (an address block) keeps the line fair.
   */
  async verify(presented: string, hash: string, requester?: string): Promise<boolean> {
    const read = readClientSecretHash(hash);
    if (!read.ok || Buffer.byteLength(presented) > MAX_SECRET_BYTES) return false;
    if (read.hash.kind !== 'pbkdf2') return this.hasher.verify(presented, hash, requester);
    const pbkdf2Hash = read.hash;
    try {
      return await this.limiter.run(() => verifyPbkdf2(presented, pbkdf2Hash), requester);
    } catch (e) {
      if (e instanceof QueueFullError) throw new PasswordHasherBusyError();
      return false;
    }
  }
}

/** Derives the key of `presented` with the hash's digest, salt and iterations and compares it in constant time. */
export async function verifyPbkdf2(presented: string, hash: Pbkdf2Hash): Promise<boolean> {
  const expected = Buffer.from(hash.key, 'base64');
  const derived = await pbkdf2Async(Buffer.from(presented, 'utf8'), Buffer.from(hash.salt, 'base64'), hash.iterations, expected.length, hash.digest);
  return derived.length === expected.length && timingSafeEqual(derived, expected);
}

/** Adapted base64 (passlib's `ab64`): standard base64 without padding, `.` for `+`. */
const adaptedBase64 = (bytes: Buffer): string => bytes.toString('base64').replace(/=+$/, '').replace(/\+/g, '.');

/**
 * A PBKDF2-SHA512 hash of `secret` as Authelia writes client secrets by default
 * (`$pbkdf2-sha512$310000$<16-byte salt>$<64-byte key>`), for `portcullis oidc client add --hashed`.
 */
export function pbkdf2Sha512Hash(secret: string, iterations = 310_000): string {
  const salt = randomBytes(16);
  return `$pbkdf2-sha512$${iterations}$${adaptedBase64(salt)}$${adaptedBase64(pbkdf2Sync(secret, salt, iterations, 64, 'sha512'))}`;
}
