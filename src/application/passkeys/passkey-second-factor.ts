import type { PasskeyCredentials } from './passkey-credentials';
import type { PasskeySecondFactorChoices } from './passkey-second-factor-choices';

/**
 * Whether an account owes a passkey after its password (issue 16): with PASSKEY_SECOND_FACTOR
 * every account holding one does; otherwise an account that chose it on its account page does.
 * Never without a passkey to show: an account whose last passkey is gone owes nothing more than
 * its password (and its TOTP code, if it has one), so removing a passkey can never lock it out.
 */
export class PasskeySecondFactor {
  constructor(
    private readonly passkeys: PasskeyCredentials,
    private readonly choices: PasskeySecondFactorChoices,
    /** PASSKEY_SECOND_FACTOR. */
    private readonly everyAccount: boolean,
  ) {}

  /** Throws StateStoreUnavailableError when the store cannot tell (the caller fails closed). */
  async owed(username: string): Promise<boolean> {
    if (!this.everyAccount && !(await this.choices.chosen(username))) return false;
    return (await this.passkeys.list(username)).length > 0;
  }

  /** Whether the global option asks it of every account (the account page then offers no choice). */
  get required(): boolean {
    return this.everyAccount;
  }
}
