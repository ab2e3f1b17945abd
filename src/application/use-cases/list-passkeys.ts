import type { Passkey } from '../../domain/passkey';
import { err, ok, type Result } from '../../domain/result';
import type { PasskeyCredentials } from '../ports/passkey-credentials';
import type { UserStore } from '../ports/user-store';
import { passkeyOwner } from '../services/passkey-owner';
import type { RequestAuthenticator } from '../services/request-authenticator';
import { isStoreUnavailable } from '../services/store-unavailable';

export interface ListPasskeysInput {
  readonly sessionToken?: string;
  readonly ip: string;
  readonly requestId?: string;
}

export type ListPasskeysError = { readonly code: 'not_logged_in' } | { readonly code: 'store_unavailable' };

/** The logged-in person's passkeys, oldest first. */
export class ListPasskeysUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly users: UserStore,
    private readonly passkeys: PasskeyCredentials,
  ) {}

  async execute(input: ListPasskeysInput): Promise<Result<{ readonly passkeys: readonly Passkey[] }, ListPasskeysError>> {
    try {
      const owner = await passkeyOwner(this.authenticator, this.users, input.sessionToken, input.ip, input.requestId);
      if (owner.kind !== 'owner') return err({ code: 'not_logged_in' });
      return ok({ passkeys: await this.passkeys.list(owner.account.username) });
    } catch (e) {
      if (isStoreUnavailable(e)) return err({ code: 'store_unavailable' });
      throw e;
    }
  }
}
