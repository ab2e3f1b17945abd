import { hasTotp } from '../../domain/account';
import { err, ok, type Result } from '../../domain/result';
import type { EnrolledTotpSecrets } from '../ports/enrolled-totp-secrets';
import type { UserStore } from '../ports/user-store';
import { passkeyOwner } from '../services/passkey-owner';
import type { RequestAuthenticator } from '../services/request-authenticator';
import { isStoreUnavailable } from '../services/store-unavailable';

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
  constructor(
    private readonly authenticator: RequestAuthenticator,
    /** The configured user stores as they are, without self-enrolled secrets: what an administrator set. */
    private readonly storeUsers: UserStore,
    private readonly enrolled: EnrolledTotpSecrets,
  ) {}

  async execute(input: GetTotpEnrolmentInput): Promise<Result<{ readonly state: TotpEnrolmentState }, GetTotpEnrolmentError>> {
    try {
      const owner = await passkeyOwner(this.authenticator, this.storeUsers, input.sessionToken, input.ip, input.requestId);
      if (owner.kind !== 'owner') return err({ code: 'not_logged_in' });
      if (hasTotp(owner.account)) return ok({ state: 'administrator' });
      if (owner.account.passkeyOnly === true) return ok({ state: 'passkey_only' });
      return ok({ state: this.enrolled.secretOf(owner.account.username) === null ? 'none' : 'enrolled' });
    } catch (e) {
      if (isStoreUnavailable(e)) return err({ code: 'store_unavailable' });
      throw e;
    }
  }
}
