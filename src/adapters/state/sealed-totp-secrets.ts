import type { TotpSecretSealer } from '../../application/totp/totp-secret-sealer';
import { storedSecretContext } from '../../domain/totp-enrolment';

/** One self-enrolled secret as a replica holds it: the plaintext for checks, the stored (sealed) text for compare-and-delete. */
export interface HeldSecret {
  readonly secret: string;
  readonly sealed: string;
}

/**
 * The memory every durable adapter of EnrolledTotpSecrets answers from, and the sealing of what
 * it stores: the store holds only `sealed` (AES-GCM under a key derived from SECRET, bound to the
 * username), never the secret itself.
 */
export class SealedTotpSecrets {
  private readonly held = new Map<string, HeldSecret>();

  constructor(private readonly sealer: TotpSecretSealer) {}

  seal(username: string, secret: string): string {
    return this.sealer.seal(storedSecretContext(username), secret);
  }

  get(username: string): HeldSecret | undefined {
    return this.held.size === 0 ? undefined : this.held.get(username);
  }

  /** Remembers what the store holds for `username` (null: nothing). A row that does not open (another SECRET, moved between accounts) counts as none and is left alone. */
  learn(username: string, sealed: string | null): void {
    const secret = sealed === null ? null : this.sealer.open(storedSecretContext(username), sealed);
    if (sealed === null || secret === null) this.held.delete(username);
    else this.held.set(username, { secret, sealed });
  }

  /** Replaces everything held with `rows` (a full load of the store). */
  reload(rows: Iterable<{ readonly username: string; readonly sealed: string }>): void {
    this.held.clear();
    for (const row of rows) this.learn(row.username, row.sealed);
  }
}
