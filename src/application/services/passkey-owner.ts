import type { Account } from '../../domain/account';
import type { Session } from '../../domain/session';
import type { UserStore } from '../ports/user-store';
import type { RequestAuthenticator } from './request-authenticator';

/** The account behind a fully logged-in session of a local account, or why there is none. */
export type PasskeyOwner =
  | { readonly kind: 'owner'; readonly account: Account; readonly session: Session }
  /** No session, a pending one (TOTP still owed), HTTP Basic, or an OAuth session (no local account to hold passkeys). */
  | { readonly kind: 'not_logged_in' };

/** Providers whose sessions belong to an account in the user store (as RequestAuthenticator's). */
const LOCAL_PROVIDERS: ReadonlySet<string> = new Set(['username', 'ldap']);

/**
 * Who may manage passkeys: only a full session cookie of a local account. A pending session is
 * refused (a password alone must not be enough to add a passkey, which would then pass as the
 * second factor), and so is HTTP Basic (a browser resends it to any page, CSRF included).
 */
export async function passkeyOwner(
  authenticator: RequestAuthenticator,
  users: UserStore,
  token: string | undefined,
  ip: string,
  requestId?: string,
): Promise<PasskeyOwner> {
  if (token === undefined) return { kind: 'not_logged_in' };
  const auth = await authenticator.authenticate({ sessionToken: token, ip, requestId });
  if (auth.kind !== 'session' || !LOCAL_PROVIDERS.has(auth.session.provider) || auth.session.oauth) return { kind: 'not_logged_in' };
  const account = await users.currentAccount(auth.session.username);
  if (account === null) return { kind: 'not_logged_in' };
  return { kind: 'owner', account, session: auth.session };
}
