import type { LogoutDelivery } from '../../domain/backchannel-logout';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { LogoutDeliveries } from './logout-deliveries';
import type { OidcArtifacts } from './oidc-artifacts';
import type { OidcClients } from './oidc-clients';
import type { OidcSessionLogins } from './oidc-session-logins';
import type { FrontchannelLogouts } from './frontchannel-logouts';
import { frontchannelLogoutUrl } from '../../domain/oidc-client';

/**
 * What ending a gateway session does to the apps it logged in to through the provider: the
 * tokens each holds from it (refresh tokens included) end with it, and every app registered for
 * back-channel logout gets a logout token, queued in the state store and delivered by
 * {@link DeliverLogoutsUseCase} (never on the path of the answer that ended the session).
 */
export class EndOidcSessionLoginsUseCase {
  constructor(
    private readonly logins: OidcSessionLogins,
    private readonly artifacts: OidcArtifacts,
    private readonly deliveries: LogoutDeliveries,
    private readonly clients: OidcClients,
    private readonly parts: {
      readonly clock: Clock;
      readonly ids: IdGenerator;
      readonly audit: AuditLog;
      readonly queued?: () => void;
      /** Where the front-channel pages of an ended session are kept for the answer that ended it, and the issuer they name. */
      readonly frontchannel?: { readonly pages: FrontchannelLogouts; readonly issuer: string };
    },
  ) {}

  /** Resolves how many logout tokens were queued. */
  async execute(sessionId: string): Promise<number> {
    const logins = await this.logins.take(sessionId);
    let queued = 0;
    const now = this.parts.clock.now();
    const pages: string[] = [];
    for (const login of logins) {
      if (login.grantId !== null) await this.artifacts.revokeByGrantId(login.grantId);
      const front = this.clients.get(login.clientId)?.frontchannelLogout;
      const page =
        front === undefined || this.parts.frontchannel === undefined
          ? null
          : frontchannelLogoutUrl(front.uri, this.parts.frontchannel.issuer, login.sid, front.sessionRequired);
      if (page !== null) pages.push(page);
      if (this.clients.get(login.clientId)?.backchannelLogout === undefined) continue;
      const delivery: LogoutDelivery = {
        id: this.parts.ids.next(),
        clientId: login.clientId,
        subject: login.subject,
        sid: login.sid,
        createdAt: now,
        attempts: 0,
        dueAt: now,
      };
      await this.deliveries.add(delivery);
      queued += 1;
    }
    if (pages.length > 0) await this.parts.frontchannel?.pages.put(sessionId, pages);
    if (queued > 0) this.parts.queued?.();
    return queued;
  }
}
