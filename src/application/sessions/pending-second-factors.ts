import { hasTotp } from '../../domain/account';
import type { PasskeyCredentials } from '../passkeys/passkey-credentials';
import type { UserStore } from '../ports/user-store';

export type SecondFactor = 'totp' | 'passkey';

/**
 * Which second factors a pending login (password accepted, second step owed) can show, so the
 * second-factor page offers those only (issue 16): an account whose passkey is its second factor
 * and that has no TOTP gets no code field it could never fill.
 */
export class PendingSecondFactors {
  constructor(
    private readonly users: UserStore,
    /** Null with PASSKEYS off. */
    private readonly passkeys: PasskeyCredentials | null,
  ) {}

  /** In the order the page offers them. Throws what the stores throw. */
  async of(username: string): Promise<SecondFactor[]> {
    const account = await this.users.currentAccount(username);
    if (account === null) return [];
    const factors: SecondFactor[] = hasTotp(account) ? ['totp'] : [];
    if (this.passkeys !== null && (await this.passkeys.list(account.username)).length > 0) factors.push('passkey');
    return factors;
  }
}
