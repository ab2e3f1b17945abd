import { err, ok, type Result } from '../../domain/result';
import type { AppGrants } from './app-grants';
import type { AuditLog } from '../ports/audit-log';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import { unavailableAsError } from '../store-unavailable';

export interface SignOutOfAppInput {
  /** The session cookie's value, if any. */
  readonly sessionToken?: string;
  /** Whether the request provably comes from the gateway's own pages (see LogoutInput): refused otherwise (CSRF). */
  readonly fromThisSite: boolean;
  /** The app (OpenID Connect client id) to sign out of. */
  readonly clientId: string;
  readonly ip: string;
  readonly requestId?: string;
}

/**
 * `cross_site_request`: not from the gateway's own pages, nothing ended. `session_required`: no
 * fully logged-in session. `app_not_found`: the app holds nothing for the caller (or is no
 * configured app). `store_unavailable`: the end could not be stored; retrying is safe.
 */
export type SignOutOfAppError =
  { readonly code: 'cross_site_request' } | { readonly code: 'session_required' } | { readonly code: 'app_not_found' } | { readonly code: 'store_unavailable' };

/**
 * Ends what one OpenID Connect app holds for the caller (its refresh and access tokens), from the
 * account page; the gateway session and the other apps go on. Answers once the end is stored.
 */
export class SignOutOfAppUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly grants: AppGrants,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: SignOutOfAppInput): Promise<Result<Record<string, never>, SignOutOfAppError>> {
    if (!input.fromThisSite) {
      this.audit.record({ event: 'logout_refused', ip: input.ip, reason: 'cross_site', requestId: input.requestId });
      return err({ code: 'cross_site_request' });
    }
    const auth = await this.authenticator.authenticate({ sessionToken: input.sessionToken, ip: input.ip, requestId: input.requestId });
    if (auth.kind === 'unavailable') return err({ code: 'store_unavailable' });
    if (auth.kind !== 'session') return err({ code: 'session_required' });
    return unavailableAsError(async () => {
      if (!(await this.grants.end(auth.identity, input.clientId))) return err({ code: 'app_not_found' });
      this.audit.record({ event: 'app_signed_out', username: auth.identity.username, client: input.clientId, requestId: input.requestId });
      return ok({});
    });
  }
}
