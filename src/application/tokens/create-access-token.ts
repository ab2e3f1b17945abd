import type { TokenFieldProblem } from '../../domain/access-token';
import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { UserStore } from '../ports/user-store';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import { unavailableAsError } from '../store-unavailable';
import type { IssuedToken, TokenIssuer } from './token-issuer';
import { tokenOwnerOf, type TokenOwnerRequest } from './token-owner';

export interface CreateAccessTokenInput extends TokenOwnerRequest {
  /** Whether the request provably comes from the gateway's own pages (see LogoutInput): refused otherwise (CSRF). */
  readonly fromThisSite: boolean;
  /** The fields as the request carried them; the issuer checks them. */
  readonly name: unknown;
  readonly apps?: unknown;
  readonly expiresInDays?: unknown;
}

/**
 * `cross_site_request`: not from the gateway's own pages, nothing made. `session_required`: no
 * full session cookie. `local_account_required`: an OAuth session (see TokenOwner).
 * `invalid_fields` and `too_many_tokens`: see TokenIssueError. `store_unavailable`: nothing is
 * known to be stored; retrying is safe (an unconfirmed token may exist: it is listed, and can be revoked).
 */
export type CreateAccessTokenError =
  | { readonly code: 'cross_site_request' }
  | { readonly code: 'session_required' }
  | { readonly code: 'local_account_required' }
  | { readonly code: 'invalid_fields'; readonly fields: readonly TokenFieldProblem[] }
  | { readonly code: 'too_many_tokens' }
  | { readonly code: 'store_unavailable' };

/** Makes an access token for the caller's own account (issue 32); the secret is in the answer, once. */
export class CreateAccessTokenUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly users: UserStore,
    private readonly issuer: TokenIssuer,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: CreateAccessTokenInput): Promise<Result<IssuedToken, CreateAccessTokenError>> {
    if (!input.fromThisSite) {
      this.audit.record({ event: 'logout_refused', ip: input.ip, reason: 'cross_site', requestId: input.requestId });
      return err({ code: 'cross_site_request' });
    }
    return unavailableAsError(async () => {
      const owner = await tokenOwnerOf(this.authenticator, this.users, input);
      if (owner.kind === 'unavailable') return err({ code: 'store_unavailable' } as const);
      if (owner.kind !== 'owner') return err({ code: owner.kind });
      const issued = await this.issuer.issue({
        username: owner.account.username,
        name: input.name,
        apps: input.apps,
        expiresInDays: input.expiresInDays,
        by: 'account',
        requestId: input.requestId,
      });
      return issued.ok ? ok(issued.value) : err(issued.error);
    });
  }
}
