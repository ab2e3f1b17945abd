import type { AccessTokenRecord } from '../../domain/access-token';
import { err, ok, type Result } from '../../domain/result';
import type { UserStore } from '../ports/user-store';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import { unavailableAsError } from '../store-unavailable';
import type { AccessTokens } from './access-tokens';
import { tokenOwnerOf, type TokenOwnerRequest } from './token-owner';

export type ListAccessTokensInput = TokenOwnerRequest;

export interface ListAccessTokensOutput {
  /** The caller's tokens, newest first, revoked and expired ones included until they are forgotten. */
  readonly tokens: readonly AccessTokenRecord[];
}

/**
 * `session_required`: no full session cookie. `local_account_required`: an OAuth session (see
 * TokenOwner). `store_unavailable`: the session or the tokens cannot be read now.
 */
export type ListAccessTokensError =
  { readonly code: 'session_required' } | { readonly code: 'local_account_required' } | { readonly code: 'store_unavailable' };

/** Lists the caller's own access tokens (issue 32): never a secret, only what the store keeps of it. */
export class ListAccessTokensUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly users: UserStore,
    private readonly tokens: AccessTokens,
  ) {}

  execute(input: ListAccessTokensInput): Promise<Result<ListAccessTokensOutput, ListAccessTokensError>> {
    return unavailableAsError(async () => {
      const owner = await tokenOwnerOf(this.authenticator, this.users, input);
      if (owner.kind === 'unavailable') return err({ code: 'store_unavailable' } as const);
      if (owner.kind !== 'owner') return err({ code: owner.kind });
      return ok({ tokens: await this.tokens.list(owner.account.username) });
    });
  }
}
