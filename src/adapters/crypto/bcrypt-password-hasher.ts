import { availableParallelism } from 'node:os';
import bcrypt from 'bcrypt';
import { PasswordHasherBusyError, type PasswordHasher } from '../../application/ports/password-hasher';
import { ConcurrencyLimiter, QueueFullError } from './concurrency-limiter';

const BCRYPT_HASH = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;
// bcrypt itself reads only the first 72 bytes; absurdly long inputs are refused outright to bound the work.
const MAX_PASSWORD_BYTES = 1024;

/**
 * How many bcrypt computations may run at once: one core is always left to the event loop, so a
 * login flood slows logins down (they queue) but not the forward-auth answers. libuv's pool has
 * four threads; on a two-core machine four bcrypts at once left the event loop a third of a core.
 */
export function defaultBcryptConcurrency(cores = availableParallelism()): number {
  return Math.max(1, Math.min(4, cores - 1));
}

/** bcrypt through the native `bcrypt` package: its async calls run on libuv's thread pool, off the event loop. */
export class BcryptPasswordHasher implements PasswordHasher {
  private decoy: Promise<string> | null = null;
  private readonly limiter: ConcurrencyLimiter;

  /**
   * @param cost work factor for new hashes.
   * @param decoyCost work factor of the decoy check for unknown accounts: it must match the stored
   *   hashes (htpasswd writes cost 5), or the time of a login answer tells which accounts exist.
   * @param concurrency bcrypt computations at once; the rest wait their turn.
   * @param maxQueued checks that may wait; past that a check is refused with PasswordHasherBusyError
   *   (64 cost-10 checks on one core are about three seconds of work, six with the rests a flood
   *   adds; the line is fair per address block, so one flooding block never makes others wait that long).
   */
  constructor(
    private readonly cost = 10,
    private readonly decoyCost = cost,
    concurrency = defaultBcryptConcurrency(),
    maxQueued = 64,
  ) {
    // Under a sustained flood each slot rests as long as its hash took, so bcrypt takes at most half
    // a core per slot and the event loop keeps answering forward auth (benchmark scenario 4: with
    // a rest of half the hash, two thirds of a core, the cookie checks kept about 0.66 of their
    // calm rate on two cores, under the 0.70 this aims for). Only waiting checks pay the rest: a
    // login on a quiet gateway starts at once, and the line is fair per address block.
    this.limiter = new ConcurrencyLimiter(concurrency, maxQueued, {
      restRatio: 1,
      now: () => performance.now(),
      later: (fn, ms) => setTimeout(fn, ms).unref(),
    });
  }

  private async limited<T>(task: () => Promise<T>, requester?: string): Promise<T> {
    try {
      // Checks wait in turns per requester (address block), so one block cannot fill the line.
      return await this.limiter.run(task, requester);
    } catch (e) {
      if (e instanceof QueueFullError) throw new PasswordHasherBusyError();
      throw e;
    }
  }

  async verify(password: string, hash: string, requester?: string): Promise<boolean> {
    if (!BCRYPT_HASH.test(hash) || Buffer.byteLength(password) > MAX_PASSWORD_BYTES) return false;
    try {
      // `$2y$` (htpasswd, PHP) is the same algorithm as `$2b$`, but the native binding only knows `$2a$`/`$2b$`.
      const stored = hash.startsWith('$2y$') ? `$2b$${hash.slice(4)}` : hash;
      return await this.limited(() => bcrypt.compare(password, stored), requester);
    } catch (e) {
      if (e instanceof PasswordHasherBusyError) throw e;
      return false;
    }
  }

  hash(password: string): Promise<string> {
    return this.limited(() => bcrypt.hash(password, this.cost));
  }

  async verifyDecoy(password: string, requester?: string): Promise<false> {
    // A hash of random bytes at the stored hashes' cost, made once: comparing against it costs what a real check costs.
    this.decoy ??= this.limited(() => bcrypt.hash(Math.random().toString(36) + Date.now().toString(36), this.decoyCost)).catch((e: unknown) => {
      this.decoy = null; // a refused or failed first attempt must not poison every later check
      throw e;
    });
    const decoy = await this.decoy;
    await this.limited(() => bcrypt.compare(password.slice(0, MAX_PASSWORD_BYTES), decoy), requester);
    return false;
  }
}
