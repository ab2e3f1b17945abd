import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import bcrypt from 'bcrypt';
import { PasswordHasherBusyError, type PasswordHasher } from '../../application/ports/password-hasher';
import { readPasswordHash, type Argon2Hash, type PasswordHashParameters } from '../../domain/password-hash';
import { ConcurrencyLimiter, QueueFullError } from './concurrency-limiter';

// bcrypt itself reads only the first 72 bytes; absurdly long inputs are refused outright to bound the work.
const MAX_PASSWORD_BYTES = 1024;

/**
 * How many hash computations (bcrypt or Argon2) may run at once: one core is always left to the
 * event loop, so a login flood slows logins down (they queue) but not the forward-auth answers.
 * libuv's pool has four threads; on a two-core machine four bcrypts at once left the event loop a
 * third of a core.
 */
export function defaultBcryptConcurrency(cores = availableParallelism()): number {
  return Math.max(1, Math.min(4, cores - 1));
}

export type Argon2Module = typeof import('argon2');

export interface NativePasswordHasherOptions {
  /** What {@link NativePasswordHasher.hash} writes: bcrypt at a cost (the default, cost 10) or Argon2id. */
  readonly newHashes?: PasswordHashParameters;
  /**
   * What the decoy check for unknown accounts is made of: it must cost what the stored hashes cost
   * (htpasswd writes bcrypt cost 5, Authelia Argon2id 64 MiB × 3), or the time of a login answer
   * tells which accounts exist. Defaults to `newHashes`.
   */
  readonly decoy?: PasswordHashParameters;
  /** Hash computations at once, bcrypt and Argon2 together; the rest wait their turn. */
  readonly concurrency?: number;
  /**
   * Checks that may wait; past that a check is refused with PasswordHasherBusyError (64 cost-10
   * checks on one core are about three seconds of work, six with the rests a flood adds; the line
   * is fair per address block, so one flooding block never makes others wait that long).
   */
  readonly maxQueued?: number;
  /**
   * The `argon2` library, asked for only when an Argon2 hash is first checked or made (composition
   * loads it). Without it, Argon2 hashes verify as false.
   */
  readonly argon2?: () => Argon2Module;
}

function argon2NotHandedIn(): Argon2Module {
  throw new Error('the argon2 library was not handed to this hasher');
}

/**
 * Verifies bcrypt (`$2a$`, `$2b$`, `$2y$`, through the native `bcrypt` package) and Argon2
 * (`$argon2id$`, `$argon2i$`, through the native `argon2` package) hashes, chosen by the hash's
 * prefix. Both libraries compute on libuv's thread pool, off the event loop, and every computation
 * waits in the same bounded, per-requester fair line: an Argon2 account takes no more of the
 * machine than a bcrypt one. An Argon2 hash whose cost is beyond the bounds of
 * {@link readPasswordHash} is never computed (it resolves false; the configuration refuses it first).
 */
export class NativePasswordHasher implements PasswordHasher {
  private decoy: Promise<string> | null = null;
  private readonly limiter: ConcurrencyLimiter;
  private readonly newHashes: PasswordHashParameters;
  private readonly decoyParameters: PasswordHashParameters;
  private readonly argon2: () => Argon2Module;

  constructor(options: NativePasswordHasherOptions = {}) {
    this.newHashes = options.newHashes ?? { kind: 'bcrypt', cost: 10 };
    this.decoyParameters = options.decoy ?? this.newHashes;
    this.argon2 = options.argon2 ?? argon2NotHandedIn;
    // Under a sustained flood each slot rests as long as its hash took, so hashing takes at most half
    // a core per slot and the event loop keeps answering forward auth (benchmark scenario 4: with
    // a rest of half the hash, two thirds of a core, the cookie checks kept about 0.66 of their
    // calm rate on two cores, under the 0.70 this aims for). Only waiting checks pay the rest: a
    // login on a quiet gateway starts at once, and the line is fair per address block.
    this.limiter = new ConcurrencyLimiter(options.concurrency ?? defaultBcryptConcurrency(), options.maxQueued ?? 64, {
      restRatio: 1,
      now: () => performance.now(),
      later: (fn, ms) => setTimeout(fn, ms).unref(),
    });
  }

  private async limited<T>(task: () => Promise<T>, requester?: string, cores = 1): Promise<T> {
    try {
      // Checks wait in turns per requester (address block), so one block cannot fill the line.
      return await this.limiter.run(task, requester, cores);
    } catch (e) {
      if (e instanceof QueueFullError) throw new PasswordHasherBusyError();
      throw e;
    }
  }

  /** The computation that checks `password` against a hash already read; it throws on a malformed hash. */
  private compare(password: string, hash: string, kind: PasswordHashParameters['kind']): Promise<boolean> {
    if (kind === 'argon2') return this.argon2().verify(hash, password);
    // `$2y$` (htpasswd, PHP) is the same algorithm as `$2b$`, but the native binding only knows `$2a$`/`$2b$`.
    return bcrypt.compare(password, hash.startsWith('$2y$') ? `$2b$${hash.slice(4)}` : hash);
  }

  async verify(password: string, hash: string, requester?: string): Promise<boolean> {
    const read = readPasswordHash(hash);
    if (!read.ok || Buffer.byteLength(password) > MAX_PASSWORD_BYTES) return false;
    try {
      return await this.limited(() => this.compare(password, hash, read.hash.kind), requester, coresOf(read.hash));
    } catch (e) {
      if (e instanceof PasswordHasherBusyError) throw e;
      return false;
    }
  }

  private make(password: string, parameters: PasswordHashParameters): Promise<string> {
    if (parameters.kind === 'bcrypt') return bcrypt.hash(password, parameters.cost);
    return this.argon2().hash(password, argon2Options(this.argon2(), parameters));
  }

  hash(password: string): Promise<string> {
    return this.limited(() => this.make(password, this.newHashes), undefined, coresOf(this.newHashes));
  }

  async verifyDecoy(password: string, requester?: string): Promise<false> {
    // A hash of random bytes with the stored hashes' kind and cost, made once: comparing against it costs what a real check costs.
    const cores = coresOf(this.decoyParameters);
    this.decoy ??= this.limited(() => this.make(randomBytes(18).toString('base64'), this.decoyParameters), undefined, cores).catch((e: unknown) => {
      this.decoy = null; // a refused or failed first attempt must not poison every later check
      throw e;
    });
    const decoy = await this.decoy;
    await this.limited(() => this.compare(password.slice(0, MAX_PASSWORD_BYTES), decoy, this.decoyParameters.kind), requester, cores);
    return false;
  }
}

/**
 * Cores one computation keeps busy: bcrypt one; the argon2 library computes an Argon2 hash's `p`
 * lanes on `p` threads at once (Authelia's default: four), up to the machine's cores. The line's
 * pacing lets such a check rest longer, so a flood of them leaves the event loop its share.
 */
function coresOf(parameters: PasswordHashParameters): number {
  return parameters.kind === 'bcrypt' ? 1 : Math.min(parameters.parallelism, availableParallelism());
}

function argon2Options(argon2: Argon2Module, parameters: Argon2Hash): Parameters<Argon2Module['hash']>[1] {
  return {
    type: parameters.variant === 'argon2id' ? argon2.argon2id : argon2.argon2i,
    memoryCost: parameters.memoryKiB,
    timeCost: parameters.iterations,
    parallelism: parameters.parallelism,
  };
}
