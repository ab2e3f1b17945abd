import type { Account } from '../../domain/account';
import type { UserStore } from '../ports/user-store';
import type { RequestAuthenticator } from '../sessions/request-authenticator';

/** What every account-page token use case is asked with. */
export interface TokenOwnerRequest {
  /** The session cookie's value, if any. HTTP Basic is never asked (a browser resends it to any page). */
  readonly sessionToken?: string;
  readonly ip: string;
  /** Correlates audit events with the request that caused them. */
  readonly requestId?: string;
}

/**
 * The account behind a request, for its tokens: `owner` for a full session cookie of a local
 * account (users, users file, LDAP); `session_required` without one (none, expired, revoked, a
 * TOTP code still owed); `local_account_required` for an OAuth session, whose identity comes from
 * its provider at each login and could not stand behind a token (nor be told from a local account
 * of the same name); `unavailable` when the session cannot be checked now.
 */
export type TokenOwner =
  | { readonly kind: 'owner'; readonly account: Account }
  | { readonly kind: 'session_required' }
  | { readonly kind: 'local_account_required' }
  | { readonly kind: 'unavailable' };

/** Providers whose sessions belong to an account in the user store (as RequestAuthenticator's). */
const LOCAL_PROVIDERS: ReadonlySet<string> = new Set(['username', 'ldap']);

/**
 * Finds the owner of the request's session (see {@link TokenOwner}). No input names an account, so
 * nobody reaches another account's tokens. Throws what the user store throws.
 */
export async function tokenOwnerOf(authenticator: RequestAuthenticator, users: UserStore, request: TokenOwnerRequest): Promise<TokenOwner> {
  if (request.sessionToken === undefined) return { kind: 'session_required' };
  const auth = await authenticator.authenticate({ sessionToken: request.sessionToken, ip: request.ip, requestId: request.requestId });
  if (auth.kind === 'unavailable') return { kind: 'unavailable' };
  if (auth.kind !== 'session') return { kind: 'session_required' };
  if (auth.session.oauth || !LOCAL_PROVIDERS.has(auth.session.provider)) return { kind: 'local_account_required' };
  const account = await users.currentAccount(auth.session.username);
  return account === null ? { kind: 'session_required' } : { kind: 'owner', account };
}
