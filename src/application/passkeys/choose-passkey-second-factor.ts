import { err, ok, type Result } from '../../domain/result';
import type { PasskeyCredentials } from './passkey-credentials';
import type { PasskeySecondFactorChoices } from './passkey-second-factor-choices';
import type { PasskeyOwners } from './passkey-owner';
import type { PasskeySecondFactor } from './passkey-second-factor';
import type { Reauthentication, ReauthenticationError, ReauthenticationProof } from './reauthentication';

export interface ChoosePasskeySecondFactorInput {
  readonly sessionToken?: string;
  readonly fromThisSite: boolean;
  /** true: a passkey after the password from the next login on; false: the password alone (and TOTP, if any). Unchecked. */
  readonly passkey: unknown;
  /** The password asked again: a session alone must not turn the second step on or off (issue 29). */
  readonly proof: ReauthenticationProof;
  readonly ip: string;
  readonly requestId?: string;
}

/**
 * `invalid_choice`: not a boolean. `not_applicable`: a passkey-only account (it has no password
 * step) or PASSKEY_SECOND_FACTOR, which already asks it of every account. `no_passkey`: the
 * account holds no passkey yet (choosing one would ask for a passkey it cannot show).
 */
export type ChoosePasskeySecondFactorError =
  | { readonly code: 'cross_site_request' }
  | { readonly code: 'not_logged_in' }
  | { readonly code: 'invalid_choice' }
  | { readonly code: 'not_applicable' }
  | { readonly code: 'no_passkey' }
  | ReauthenticationError;

/**
 * The account page's "ask for a passkey after my password" switch (issue 16). It applies from the
 * next login on: the sessions already open were made under the old rule and stay (a person who
 * wants them gone uses "sign out everywhere else" on the same page).
 */
export class ChoosePasskeySecondFactorUseCase {
  constructor(
    private readonly owners: PasskeyOwners,
    private readonly reauthentication: Reauthentication,
    private readonly passkeys: PasskeyCredentials,
    private readonly choices: PasskeySecondFactorChoices,
    private readonly policy: PasskeySecondFactor,
  ) {}

  async execute(input: ChoosePasskeySecondFactorInput): Promise<Result<{ readonly chosen: boolean }, ChoosePasskeySecondFactorError>> {
    return this.owners.forOwnerFromThisSite(input, async (owner) => {
      const { account } = owner;
      if (typeof input.passkey !== 'boolean') return err({ code: 'invalid_choice' });
      if (account.passkeyOnly === true || this.policy.required) return err({ code: 'not_applicable' });
      const username = account.username;
      if (input.passkey && (await this.passkeys.list(username)).length === 0) return err({ code: 'no_passkey' });
      const proven = await this.reauthentication.prove(owner, input.proof, input);
      if (!proven.ok) return proven;
      await this.choices.choose(username, input.passkey);
      return ok({ chosen: input.passkey });
    });
  }
}
