import type { PasskeySecondFactorChoices } from '../../../application/passkeys/passkey-second-factor-choices';

/** Second-factor choices in this process (no durable store: they are gone at a restart, like its passkeys). */
export class InMemoryPasskeySecondFactorChoices implements PasskeySecondFactorChoices {
  private readonly accounts = new Set<string>();

  async chosen(username: string): Promise<boolean> {
    return this.accounts.has(username);
  }

  async choose(username: string, passkey: boolean): Promise<void> {
    if (passkey) this.accounts.add(username);
    else this.accounts.delete(username);
  }
}
