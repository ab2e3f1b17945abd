import { hasTotp } from '../../domain/account';
import { ok, type Result } from '../../domain/result';
import type { EnrolledTotpSecrets } from './enrolled-totp-secrets';
import type { UserStore } from '../ports/user-store';
import { PasskeyOwners } from '../passkeys/passkey-owner';
import type { RequestAuthenticator } from '../sessions/request-authenticator';

export interface GetTotpEnrolmentInput {
  readonly sessionToken?: string;
  readonly ip: string;
  readonly requestId?: string;
}

/**
 * `none`: the account may set up a TOTP code. `enrolled`: it set one up itself (and may remove it).
 * `administrator`: its user store holds one (USERS, users file, LDAP): authoritative, not changeable here.
 * `passkey_only`: the account has no password, and a set-up is confirmed with the password (ADR 0031).
 */
export type TotpEnrolmentState = 'none' | 'enrolled' | 'administrator' | 'passkey_only';

export type GetTotpEnrolmentError = { readonly code: 'not_logged_in' } | { readonly code: 'store_unavailable' };

/** Where the logged-in person's TOTP code comes from, for the account page. */
export class GetTotpEnrolmentUseCase {
  private readonly owners: PasskeyOwners;

  constructor(
    authenticator: RequestAuthenticator,
    /** The configured user stores as they are, without self-enrolled secrets: what an administrator set. */
    storeUsers: UserStore,
    private readonly enrolled: EnrolledTotpSecrets,
  ) {
    this.owners = new PasskeyOwners(authenticator, storeUsers);
  }

  async execute(input: GetTotpEnrolmentInput): Promise<Result<{ readonly state: TotpEnrolmentState }, GetTotpEnrolmentError>> {
    return this.owners.forOwner(input, async ({ account }) => {
      if (hasTotp(account)) return ok({ state: 'administrator' });
      if (account.passkeyOnly === true) return ok({ state: 'passkey_only' });
      return ok({ state: this.enrolled.secretOf(account.username) === null ? 'none' : 'enrolled' });
    });
  }
}
