import { err, ok, type Result } from '../../domain/result';
import type { AppGrants } from './app-grants';
import type { AuditLog } from '../ports/audit-log';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { SessionIndex } from '../ports/session-index';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import { unavailableAsError } from '../store-unavailable';
import { liveSessionsOf, sameAccount } from './list-account-sessions';

/** Which of the caller's sessions to end: one of them by id, all but the current one, or all. */
export type SessionsToRevoke = { readonly scope: 'one'; readonly id: string } | { readonly scope: 'others' } | { readonly scope: 'all' };

export interface RevokeAccountSessionsInput {
  /** The session cookie's value, if any. */
  readonly sessionToken?: string;
  /** Whether the request provably comes from the gateway's own pages (see LogoutInput): refused otherwise (CSRF). */
  readonly fromThisSite: boolean;
  readonly target: SessionsToRevoke;
  readonly ip: string;
  /** Correlates audit events with the request that caused them. */
  readonly requestId?: string;
}

export interface RevokeAccountSessionsOutput {
  /** How many sessions were ended. */
  readonly revoked: number;
  /** Whether the caller's own session was among them (its cookie should then be cleared). */
  readonly endedCurrent: boolean;
}

/**
 * `cross_site_request`: not from the gateway's own pages, nothing ended. `session_required`: no
 * fully logged-in session. `session_not_found`: the id names no live session of the caller's
 * account (someone else's session gets this same answer: ids of other accounts are never
 * confirmed). `store_unavailable`: the list or a revocation could not be read or stored; sessions
 * already revoked stay revoked, and retrying is safe.
 */
export type RevokeAccountSessionsError =
  | { readonly code: 'cross_site_request' }
  | { readonly code: 'session_required' }
  | { readonly code: 'session_not_found' }
  | { readonly code: 'store_unavailable' };

/**
 * Ends sessions of the caller's own account: "sign out this one", "everywhere else", "everywhere";
 * the last two end the grants OpenID Connect apps hold for the person too.
 * Answers only once every revocation is stored (as logout does), so a "signed out" is never
 * reported for a session that still works.
 */
export class RevokeAccountSessionsUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly index: SessionIndex,
    private readonly revoked: RevokedSessions,
    private readonly audit: AuditLog,
    private readonly appGrants: AppGrants,
  ) {}

  async execute(input: RevokeAccountSessionsInput): Promise<Result<RevokeAccountSessionsOutput, RevokeAccountSessionsError>> {
    if (!input.fromThisSite) {
      this.audit.record({ event: 'logout_refused', ip: input.ip, reason: 'cross_site', requestId: input.requestId });
      return err({ code: 'cross_site_request' });
    }
    const auth = await this.authenticator.authenticate({ sessionToken: input.sessionToken, ip: input.ip, requestId: input.requestId });
    if (auth.kind === 'unavailable') return err({ code: 'store_unavailable' });
    if (auth.kind !== 'session') return err({ code: 'session_required' });
    const current = auth.session;
    return unavailableAsError(async () => {
      const live = (await liveSessionsOf(current.username, this.index, this.revoked)).filter((s) => sameAccount(s, current));
      // The current session counts even if it was never indexed (made before the index existed).
      const mine = live.some((s) => s.id === current.id) ? live : [{ id: current.id, expiresAt: current.expiresAt }, ...live];
      const chosen =
        input.target.scope === 'one'
          ? mine.filter((s) => s.id === (input.target as { id: string }).id)
          : input.target.scope === 'others'
            ? mine.filter((s) => s.id !== current.id)
            : mine;
      if (input.target.scope === 'one' && chosen.length === 0) return err({ code: 'session_not_found' });
      // The current session last: if a write fails midway, the person still holds a working page to retry from.
      chosen.sort((a, b) => Number(a.id === current.id) - Number(b.id === current.id));
      // Everywhere (or everywhere else) includes the apps: what they hold for the person ends before the sessions do.
      if (input.target.scope !== 'one') await this.appGrants.endAll(auth.identity);
      for (const s of chosen) await this.revoked.revoke(s.id, s.expiresAt);
      this.audit.record({
        event: 'sessions_revoked',
        username: current.username,
        scope: input.target.scope,
        count: chosen.length,
        by: 'account',
        requestId: input.requestId,
      });
      return ok({ revoked: chosen.length, endedCurrent: chosen.some((s) => s.id === current.id) });
    });
  }
}
