import { attemptJti, logoutTokenClaims, nextLogoutAttempt, type LogoutDelivery, type LogoutRetryPolicy } from '../../domain/backchannel-logout';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { LogoutDeliveries } from './logout-deliveries';
import type { OidcClients } from './oidc-clients';
import type { LogoutTokenSender } from './logout-token-sender';

export interface DeliverLogoutsSettings {
  /** The provider's issuer (APP_URL). */
  readonly issuer: string;
  readonly retry: LogoutRetryPolicy;
  /** How long a claimed delivery is this replica's: longer than one attempt can take. */
  readonly leaseMs: number;
  /** The most deliveries one run sends (at once). */
  readonly batch: number;
}

/**
 * One run of the back-channel logout queue: claims the deliveries due (leased, so another replica
 * polling at the same time sends none of them), sends each, and removes the delivered ones. A
 * failed one is retried with backoff until the bound after its session ended, then given up on;
 * every failure and every give-up is audited (and so counted in the metrics).
 */
export class DeliverLogoutsUseCase {
  constructor(
    private readonly deliveries: LogoutDeliveries,
    private readonly clients: OidcClients,
    private readonly sender: LogoutTokenSender,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly settings: DeliverLogoutsSettings,
  ) {}

  /** Resolves how many deliveries were claimed (a full batch: call again, more may be due). */
  async execute(): Promise<number> {
    const claimed = await this.deliveries.claim(this.clock.now(), this.settings.leaseMs, this.settings.batch);
    await Promise.all(claimed.map((d) => this.attempt(d)));
    return claimed.length;
  }

  private async attempt(delivery: LogoutDelivery): Promise<void> {
    const client = this.clients.get(delivery.clientId);
    const endpoint = client?.backchannelLogout;
    const claims =
      endpoint === undefined
        ? null
        : logoutTokenClaims({
            issuer: this.settings.issuer,
            clientId: delivery.clientId,
            subject: delivery.subject,
            sid: delivery.sid,
            sessionRequired: endpoint.sessionRequired,
            jti: attemptJti(delivery),
            now: this.clock.now(),
          });
    if (endpoint === undefined || claims === null) {
      // The client was removed or no longer takes logouts, or wants a sid this session never had: nothing to send, ever.
      await this.deliveries.remove(delivery.id);
      this.audit.record({ event: 'oidc_logout_given_up', client: delivery.clientId, attempts: delivery.attempts, reason: 'not_deliverable' });
      return;
    }
    const sent = await this.sender.send(endpoint.uri, claims);
    const attempts = delivery.attempts + 1;
    if (sent.ok) {
      await this.deliveries.remove(delivery.id);
      this.audit.record({ event: 'oidc_logout_delivered', client: delivery.clientId, attempts });
      return;
    }
    const reason = sent.status === undefined ? sent.reason : `${sent.reason}_${sent.status}`;
    const next = nextLogoutAttempt(delivery, attempts, this.clock.now(), this.settings.retry);
    if (next === null) {
      await this.deliveries.remove(delivery.id);
      this.audit.record({ event: 'oidc_logout_given_up', client: delivery.clientId, attempts, reason });
      return;
    }
    await this.deliveries.retry(delivery.id, attempts, next);
    this.audit.record({ event: 'oidc_logout_failed', client: delivery.clientId, attempts, reason });
  }
}
