import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { UserStore } from '../ports/user-store';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import { unavailableAsError } from '../store-unavailable';
import { tokenOwnerOf, type TokenOwnerRequest } from './token-owner';
import type { TokenRevocation } from './token-revocation';

export interface RevokeAccessTokenInput extends TokenOwnerRequest {
  /** Whether the request provably comes from the gateway's own pages (see LogoutInput): refused otherwise (CSRF). */
  readonly fromThisSite: boolean;
  /** The token's public id. */
  readonly id: string;
}

/**
 * `cross_site_request`: not from the gateway's own pages, nothing ended. `session_required`: no
 * full session cookie. `local_account_required`: an OAuth session (see TokenOwner).
 * `token_not_found`: the caller's account has no live token with this id (another account's id
 * gets the same answer). `store_unavailable`: the revocation is not confirmed; retrying is safe.
 */
export type RevokeAccessTokenError =
  | { readonly code: 'cross_site_request' }
  | { readonly code: 'session_required' }
  | { readonly code: 'local_account_required' }
  | { readonly code: 'token_not_found' }
  | { readonly code: 'store_unavailable' };

/** Ends one of the caller's own access tokens (issue 32), on every replica, before it answers. */
export class RevokeAccessTokenUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly users: UserStore,
    private readonly revocation: TokenRevocation,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: RevokeAccessTokenInput): Promise<Result<Record<string, never>, RevokeAccessTokenError>> {
    if (!input.fromThisSite) {
      this.audit.record({ event: 'logout_refused', ip: input.ip, reason: 'cross_site', requestId: input.requestId });
      return err({ code: 'cross_site_request' });
    }
    return unavailableAsError(async () => {
      const owner = await tokenOwnerOf(this.authenticator, this.users, input);
      if (owner.kind === 'unavailable') return err({ code: 'store_unavailable' } as const);
      if (owner.kind !== 'owner') return err({ code: owner.kind });
      const revoked = await this.revocation.revoke({ username: owner.account.username, id: input.id, by: 'account', requestId: input.requestId });
      return revoked.ok ? ok({}) : err(revoked.error);
    });
  }
}
