import type { Passkey } from '../../domain/passkey';
import { ok, type Result } from '../../domain/result';
import type { PasskeyCredentials } from './passkey-credentials';
import type { PasskeySecondFactorChoices } from './passkey-second-factor-choices';
import type { PasskeyOwners } from './passkey-owner';
import type { PasskeySecondFactor } from './passkey-second-factor';

export interface ListPasskeysInput {
  readonly sessionToken?: string;
  readonly ip: string;
  readonly requestId?: string;
}

/**
 * Whether a passkey is asked after the password: `required` (PASSKEY_SECOND_FACTOR), `chosen` or
 * `off` (the account's own choice), `not_applicable` (a passkey-only account: no password step).
 */
export type PasskeySecondFactorState = 'required' | 'chosen' | 'off' | 'not_applicable';

export interface ListPasskeysOutput {
  readonly passkeys: readonly Passkey[];
  readonly secondFactor: PasskeySecondFactorState;
  /** What a change to the account's passkeys asks for again (issue 29): its password, or a passkey for an account without one. */
  readonly reauthentication: 'password' | 'passkey';
}

export type ListPasskeysError = { readonly code: 'not_logged_in' } | { readonly code: 'store_unavailable' };

/** The logged-in person's passkeys, oldest first. */
export class ListPasskeysUseCase {
  constructor(
    private readonly owners: PasskeyOwners,
    private readonly passkeys: PasskeyCredentials,
    private readonly choices: PasskeySecondFactorChoices,
    private readonly policy: PasskeySecondFactor,
  ) {}

  async execute(input: ListPasskeysInput): Promise<Result<ListPasskeysOutput, ListPasskeysError>> {
    return this.owners.forOwner(input, async ({ account }) => {
      const username = account.username;
      const secondFactor: PasskeySecondFactorState =
        account.passkeyOnly === true ? 'not_applicable' : this.policy.required ? 'required' : (await this.choices.chosen(username)) ? 'chosen' : 'off';
      const reauthentication = account.passkeyOnly === true ? 'passkey' : 'password';
      return ok({ passkeys: await this.passkeys.list(username), secondFactor, reauthentication });
    });
  }
}
