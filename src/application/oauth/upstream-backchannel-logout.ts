import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { UsedOAuthFlows } from '../ports/used-oauth-flows';
import type { UpstreamLogoutRefusal, UpstreamLogoutTokens } from './upstream-logout-tokens';
import type { UpstreamSessions } from './upstream-sessions';

export interface UpstreamBackchannelLogoutInput {
  readonly provider: string;
  readonly logoutToken: string;
  readonly ip: string;
  readonly requestId?: string;
}

/** `invalid_logout_token`: refused, nothing ended; `store_unavailable`: try again (the provider retries). */
export type UpstreamBackchannelLogoutError = { readonly code: 'invalid_logout_token' } | { readonly code: 'store_unavailable' };

/**
 * An upstream OpenID Connect provider's back-channel logout: a verified token, used once (its
 * `jti`), ends the gateway sessions made from that provider session (`sid`), or from every session
 * of that subject (`sub` alone), through the revocations every replica reads.
 */
export class UpstreamBackchannelLogoutUseCase {
  constructor(
    private readonly tokens: UpstreamLogoutTokens,
    private readonly used: UsedOAuthFlows,
    private readonly sessions: UpstreamSessions,
    private readonly revoked: RevokedSessions,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: UpstreamBackchannelLogoutInput): Promise<Result<{ readonly ended: number }, UpstreamBackchannelLogoutError>> {
    const verified = await this.tokens.verify(input.provider, input.logoutToken);
    if (!verified.ok) return this.refuse(input, verified.error);
    const logout = verified.value;
    try {
      if (!(await this.used.use(`backchannel-logout:${input.provider}:${logout.jti}`, logout.usedUntil))) return this.refuse(input, 'replayed');
      const by = logout.sid !== null ? { sid: logout.sid } : { sub: logout.sub as string };
      const found = await this.sessions.find(input.provider, by);
      for (const s of found) await this.revoked.revoke(s.id, s.expiresAt);
      this.audit.record({
        event: 'upstream_logout',
        provider: input.provider,
        by: logout.sid !== null ? 'sid' : 'sub',
        count: found.length,
        requestId: input.requestId,
      });
      return ok({ ended: found.length });
    } catch {
      return err({ code: 'store_unavailable' });
    }
  }

  private refuse(input: UpstreamBackchannelLogoutInput, reason: UpstreamLogoutRefusal | 'replayed'): Result<never, UpstreamBackchannelLogoutError> {
    this.audit.record({ event: 'upstream_logout_refused', provider: input.provider.slice(0, 64), reason, ip: input.ip, requestId: input.requestId });
    return err({ code: 'invalid_logout_token' });
  }
}
