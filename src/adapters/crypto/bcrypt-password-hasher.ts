import bcrypt from 'bcrypt';
import type { PasswordHasher } from '../../application/ports/password-hasher';

const BCRYPT_HASH = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;
// bcrypt itself reads only the first 72 bytes; absurdly long inputs are refused outright to bound the work.
const MAX_PASSWORD_BYTES = 1024;

/** bcrypt through the native `bcrypt` package: its async calls run on libuv's thread pool, off the event loop. */
export class BcryptPasswordHasher implements PasswordHasher {
  private decoy: Promise<string> | null = null;

  /**
   * @param cost work factor for new hashes.
   * @param decoyCost work factor of the decoy check for unknown accounts: it must match the stored
   *   hashes (htpasswd writes cost 5), or the time of a login answer tells which accounts exist.
   */
  constructor(
    private readonly cost = 10,
    private readonly decoyCost = cost,
  ) {}

  async verify(password: string, hash: string): Promise<boolean> {
    if (!BCRYPT_HASH.test(hash) || Buffer.byteLength(password) > MAX_PASSWORD_BYTES) return false;
    try {
      // `$2y$` (htpasswd, PHP) is the same algorithm as `$2b$`, but the native binding only knows `$2a$`/`$2b$`.
      return await bcrypt.compare(password, hash.startsWith('$2y$') ? `$2b$${hash.slice(4)}` : hash);
    } catch {
      return false;
    }
  }

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.cost);
  }

  async verifyDecoy(password: string): Promise<false> {
    // A hash of random bytes at the stored hashes' cost, made once: comparing against it costs what a real check costs.
    this.decoy ??= bcrypt.hash(Math.random().toString(36) + Date.now().toString(36), this.decoyCost);
    await bcrypt.compare(password.slice(0, MAX_PASSWORD_BYTES), await this.decoy);
    return false;
  }
}
