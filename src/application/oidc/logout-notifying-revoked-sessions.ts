import type { Awaitable } from '../ports/awaitable';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { AuditLog } from '../ports/audit-log';
import type { EndOidcSessionLoginsUseCase } from './end-oidc-session-logins';

/**
 * The revocations, telling the apps a session logged in to that it ended. Every way a session
 * ends (logout, RP-initiated logout, the account page, `portcullis sessions revoke`, a password
 * or TOTP change) stores a revocation here, so this is the one place that must notice. The
 * revocation is stored first and alone decides the answer: a failure to queue the logouts is
 * audited, never turned into a failed logout.
 */
export class LogoutNotifyingRevokedSessions implements RevokedSessions {
  constructor(
    private readonly inner: RevokedSessions,
    private readonly ending: EndOidcSessionLoginsUseCase,
    private readonly audit: AuditLog,
  ) {}

  async revoke(id: string, untilMs: number): Promise<void> {
    await this.inner.revoke(id, untilMs);
    try {
      await this.ending.execute(id);
    } catch (e) {
      this.audit.record({ event: 'oidc_logout_not_queued', reason: e instanceof Error ? e.name : 'unknown' });
    }
  }

  isRevoked(id: string): Awaitable<boolean> {
    return this.inner.isRevoked(id);
  }
}
