import { NativePasswordHasher, type Argon2Module } from './native-password-hasher';

export { defaultBcryptConcurrency } from './native-password-hasher';

/**
 * A {@link NativePasswordHasher} that writes bcrypt hashes and makes its decoy of bcrypt (it
 * verifies Argon2 hashes too when handed the `argon2` library): the CLI's and the tests' hasher, by cost.
 */
export class BcryptPasswordHasher extends NativePasswordHasher {
  /**
   * @param cost work factor for new hashes.
   * @param decoyCost work factor of the decoy check for unknown accounts: it must match the stored
   *   hashes (htpasswd writes cost 5), or the time of a login answer tells which accounts exist.
   * @param concurrency hash computations at once; the rest wait their turn.
   * @param maxQueued checks that may wait; past that a check is refused with PasswordHasherBusyError.
   * @param argon2 the `argon2` library, for Argon2 hashes.
   */
  constructor(cost = 10, decoyCost = cost, concurrency?: number, maxQueued?: number, argon2?: () => Argon2Module) {
    super({ newHashes: { kind: 'bcrypt', cost }, decoy: { kind: 'bcrypt', cost: decoyCost }, concurrency, maxQueued, argon2 });
  }
}
