import type { Account } from '../../domain/account';
import { err, type Result } from '../../domain/result';
import type { Session } from '../../domain/session';
import type { UserStore } from '../ports/user-store';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import { unavailableAsError, type StoreUnavailable } from '../store-unavailable';

/** The account behind a fully logged-in session of a local account, or why there is none. */
export type PasskeyOwner =
  | { readonly kind: 'owner'; readonly account: Account; readonly session: Session }
  /** No session, a pending one (TOTP still owed), HTTP Basic, or an OAuth session (no local account to hold passkeys). */
  | { readonly kind: 'not_logged_in' }
  /** A change asked for from another site (see LogoutInput.fromThisSite); checked before anything else. */
  | { readonly kind: 'cross_site_request' };

/** A found owner: the account and the session that proves it. */
export type Owner = Extract<PasskeyOwner, { readonly kind: 'owner' }>;

/** What every passkey use case of the account page is asked with. */
export interface PasskeyOwnerRequest {
  readonly sessionToken?: string;
  /** For a change: whether the request provably comes from the gateway's own pages. Absent for a read. */
  readonly fromThisSite?: boolean;
  readonly ip: string;
  readonly requestId?: string;
}

/** Providers whose sessions belong to an account in the user store (as RequestAuthenticator's). */
const LOCAL_PROVIDERS: ReadonlySet<string> = new Set(['username', 'ldap']);

/**
 * Who may manage passkeys (and second factors): only a full session cookie of a local account. A
 * pending session is refused (a password alone must not be enough to add a passkey, which would
 * then pass as the second factor), and so is HTTP Basic (a browser resends it to any page, CSRF
 * included). The one prologue of the account page's passkey and TOTP set-up use cases: they run
 * their step through {@link PasskeyOwners.forOwnerFromThisSite} or {@link PasskeyOwners.forOwner}.
 */
export class PasskeyOwners {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly users: UserStore,
  ) {}

  /**
   * Runs one step of the account page for the owner of the request's session: `cross_site_request`
   * first when another site asked, `not_logged_in` without an owner, and `store_unavailable` when a
   * store cannot answer, here or in `step` (anything else thrown is thrown on).
   */
  forOwnerFromThisSite<R extends Result<unknown, unknown>>(
    request: PasskeyOwnerRequest & { readonly fromThisSite: boolean },
    step: (owner: Owner) => Promise<R>,
  ): Promise<R | Result<never, { readonly code: 'cross_site_request' } | { readonly code: 'not_logged_in' } | StoreUnavailable>> {
    return unavailableAsError(async () => {
      const owner = await this.of(request);
      return owner.kind === 'owner' ? step(owner) : err({ code: owner.kind });
    });
  }

  /**
   * The same for a step that is not asked where the request comes from: a read, or a change whose
   * route checks that itself (the account page's TOTP set-up, ADR 0031). Only the session counts.
   */
  forOwner<R extends Result<unknown, unknown>>(
    request: Omit<PasskeyOwnerRequest, 'fromThisSite'>,
    step: (owner: Owner) => Promise<R>,
  ): Promise<R | Result<never, { readonly code: 'not_logged_in' } | StoreUnavailable>> {
    return unavailableAsError(async () => {
      const owner = await this.of({ sessionToken: request.sessionToken, ip: request.ip, requestId: request.requestId });
      return owner.kind === 'owner' ? step(owner) : err({ code: 'not_logged_in' } as const);
    });
  }

  /** Throws what the authenticator or the user store throws (the use case maps a store outage). */
  async of(request: PasskeyOwnerRequest): Promise<PasskeyOwner> {
    if (request.fromThisSite === false) return { kind: 'cross_site_request' };
    if (request.sessionToken === undefined) return { kind: 'not_logged_in' };
    const auth = await this.authenticator.authenticate({ sessionToken: request.sessionToken, ip: request.ip, requestId: request.requestId });
    if (auth.kind !== 'session' || !LOCAL_PROVIDERS.has(auth.session.provider) || auth.session.oauth) return { kind: 'not_logged_in' };
    const account = await this.users.currentAccount(auth.session.username);
    if (account === null) return { kind: 'not_logged_in' };
    return { kind: 'owner', account, session: auth.session };
  }
}
