import { LOCAL_LOGIN_METHODS } from '../../domain/oauth-flow';
import { err, ok, type Result } from '../../domain/result';
import type { Identity, Session } from '../../domain/session';
import type { AppGrant, AppGrants } from './app-grants';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { IndexedSession, SessionIndex } from '../ports/session-index';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import { unavailableAsError } from '../store-unavailable';

export interface ListAccountSessionsInput {
  /** The session cookie's value, if any. Only a cookie session has an account page: HTTP Basic is never asked. */
  readonly sessionToken?: string;
  readonly ip: string;
  /** Correlates audit events with the request that caused them. */
  readonly requestId?: string;
}

export interface ListAccountSessionsOutput {
  /** Who the caller is now (from the user store where the account lives there). */
  readonly identity: Identity;
  /** The session this request came with. */
  readonly current: Session;
  /** The account's live sessions, newest first; the current one is among them when it was indexed. */
  readonly sessions: readonly IndexedSession[];
  /** The OpenID Connect apps that may hold tokens for the caller, most recent first. */
  readonly apps: readonly AppGrant[];
}

/**
 * `session_required`: no fully logged-in session cookie (none, expired, revoked, or a TOTP code
 * still owed): the account page is only for the person it belongs to, proven completely.
 * `store_unavailable`: the index or the revocations cannot be read now.
 */
export type ListAccountSessionsError = { readonly code: 'session_required' } | { readonly code: 'store_unavailable' };

/**
 * Lists the caller's own sessions. The account is the one the caller's session belongs to: no
 * input names an account, so nobody can list someone else's.
 */
export class ListAccountSessionsUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly index: SessionIndex,
    private readonly revoked: RevokedSessions,
    private readonly grants: AppGrants,
  ) {}

  async execute(input: ListAccountSessionsInput): Promise<Result<ListAccountSessionsOutput, ListAccountSessionsError>> {
    const auth = await this.authenticator.authenticate({ sessionToken: input.sessionToken, ip: input.ip, requestId: input.requestId });
    if (auth.kind === 'unavailable') return err({ code: 'store_unavailable' });
    if (auth.kind !== 'session') return err({ code: 'session_required' });
    return unavailableAsError(async () => {
      const [listed, apps] = await Promise.all([liveSessionsOf(auth.session.username, this.index, this.revoked), this.grants.list(auth.identity)]);
      const sessions = listed.filter((s) => sameAccount(s, auth.session));
      return ok({ identity: auth.identity, current: auth.session, sessions, apps });
    });
  }
}

/** Every way a local account logs in (password, TOTP, passkey); OAuth sessions carry their provider's id instead, never one of these. */
const LOCAL_METHODS: ReadonlySet<string> = new Set(LOCAL_LOGIN_METHODS);

/**
 * Whether an indexed session belongs to the same account as `current`: the same name is not enough,
 * since a local account may be named like an e-mail address an OAuth provider vouches for. Local
 * sessions go with local sessions (whichever local method made them: a session this leaves out is
 * one its owner can neither see nor end), OAuth ones with the same provider's.
 */
export function sameAccount(s: IndexedSession, current: Session): boolean {
  return current.oauth ? s.method === current.provider : LOCAL_METHODS.has(s.method);
}

/** The indexed sessions of `username` that are neither expired nor revoked (a logout revokes without unindexing). */
export async function liveSessionsOf(username: string, index: SessionIndex, revoked: RevokedSessions): Promise<IndexedSession[]> {
  const listed = await index.list(username);
  const gone = await Promise.all(listed.map((s) => revoked.isRevoked(s.id)));
  return listed.filter((_, i) => !gone[i]);
}
