import type { SigningKeys } from '../../../application/oidc/signing-keys';

/**
 * The key set in this process only: a gateway without a data directory (tests, library use)
 * signs with a key that a restart replaces. Check-and-set in one synchronous step, so concurrent
 * callers all get the first set.
 */
export class InMemorySigningKeys implements SigningKeys {
  private keySet: string | null = null;

  async getOrCreate(create: () => string): Promise<string> {
    if (this.keySet === null) this.keySet = create();
    return this.keySet;
  }

  async replace(keySet: string): Promise<void> {
    this.keySet = keySet;
  }
}
