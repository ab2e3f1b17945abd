import { ArtifactOidcSessionLogins } from '../adapters/oidc/artifact-oidc-session-logins';
import { HttpLogoutTokenSender } from '../adapters/oidc/http-logout-token-sender';
import { LogoutDeliveryWorker } from '../adapters/oidc/logout-delivery-worker';
import type { Logger } from '../adapters/system/logger';
import { DeliverLogoutsUseCase } from '../application/oidc/deliver-logouts';
import { EndOidcSessionLoginsUseCase } from '../application/oidc/end-oidc-session-logins';
import type { LogoutDeliveries } from '../application/oidc/logout-deliveries';
import type { OidcArtifacts } from '../application/oidc/oidc-artifacts';
import type { OidcClients } from '../application/oidc/oidc-clients';
import type { OidcSessionLogins } from '../application/oidc/oidc-session-logins';
import { RememberOidcLoginUseCase } from '../application/oidc/remember-oidc-login';
import { TakeFrontchannelLogoutsUseCase, type FrontchannelLogouts } from '../application/oidc/frontchannel-logouts';
import { ArtifactFrontchannelLogouts } from '../adapters/oidc/artifact-frontchannel-logouts';
import type { SigningKeys } from '../application/oidc/signing-keys';
import type { AuditLog } from '../application/ports/audit-log';
import type { Clock } from '../application/ports/clock';
import type { IdGenerator } from '../application/ports/id-generator';
import type { RequestAuthenticator } from '../application/sessions/request-authenticator';
import type { Config } from '../config/load';
import { DEFAULT_LOGOUT_RETRY } from '../domain/backchannel-logout';
import type { TypedContainer } from './binding';
import { loadSigningKeys, type SigningJwk } from './oidc-keys';
import type { Resources } from './resources';
import { bindStore } from './state';
import { TOKENS } from './tokens';

/** How often each replica looks for back-channel logouts due (queued by another replica, the CLI, or a retry). */
const POLL_MS = 1_000;
/** How long one attempt may take; the lease is well beyond it, so a delivery is never sent by two replicas at once. */
const SEND_TIMEOUT_MS = 5_000;
const LEASE_MS = 30_000;
const BATCH = 20;

/**
 * Back-channel logout (issue 35): which apps each gateway session logged in to, the durable queue
 * of logout tokens owed to them, the use cases that fill and empty it, and the worker that runs
 * it on every replica (started with the gateway, only when OpenID Connect clients are configured).
 */
export function bindBackchannelLogout(c: TypedContainer, config: Config): void {
  const bind = c.bind.bind(c) as TypedContainer['bind'];
  bindStore(c, TOKENS.LogoutDeliveries, 'records', (s) => s.logoutDeliveries());
  bind(
    TOKENS.OidcSessionLogins,
    (artifacts: OidcArtifacts, clock: Clock, clients: OidcClients): OidcSessionLogins => new ArtifactOidcSessionLogins(artifacts, clock, clients),
    [TOKENS.OidcArtifacts, TOKENS.Clock, TOKENS.OidcClients],
  );
  const frontchannel = config.oidc.clients.some((client) => client.frontchannelLogout !== undefined);
  bind(TOKENS.FrontchannelLogouts, (artifacts: OidcArtifacts, clock: Clock): FrontchannelLogouts => new ArtifactFrontchannelLogouts(artifacts, clock), [
    TOKENS.OidcArtifacts,
    TOKENS.Clock,
  ]);
  bind(TOKENS.TakeFrontchannelLogoutsUseCase, (pages: FrontchannelLogouts) => new TakeFrontchannelLogoutsUseCase(pages), [TOKENS.FrontchannelLogouts]);
  bind(
    TOKENS.RememberOidcLoginUseCase,
    (authenticator: RequestAuthenticator, logins: OidcSessionLogins) => new RememberOidcLoginUseCase(authenticator, logins),
    [TOKENS.RequestAuthenticator, TOKENS.OidcSessionLogins],
  );
  bind(
    TOKENS.EndOidcSessionLoginsUseCase,
    (
      logins: OidcSessionLogins,
      artifacts: OidcArtifacts,
      deliveries: LogoutDeliveries,
      clients: OidcClients,
      clock: Clock,
      ids: IdGenerator,
      audit: AuditLog,
    ) =>
      new EndOidcSessionLoginsUseCase(logins, artifacts, deliveries, clients, {
        clock,
        ids,
        audit,
        // Sent from this process at once when it runs the queue (a gateway); the CLI leaves them to the gateways.
        queued: () => c.get(TOKENS.LogoutDeliveryWorker).poke(),
        ...(frontchannel ? { frontchannel: { pages: c.get(TOKENS.FrontchannelLogouts), issuer: config.appUrl } } : {}),
      }),
    [TOKENS.OidcSessionLogins, TOKENS.OidcArtifacts, TOKENS.LogoutDeliveries, TOKENS.OidcClients, TOKENS.Clock, TOKENS.IdGenerator, TOKENS.AuditLog],
  );
  bind(
    TOKENS.DeliverLogoutsUseCase,
    (deliveries: LogoutDeliveries, clients: OidcClients, signingKeys: SigningKeys, clock: Clock, audit: AuditLog) => {
      let keys: Promise<SigningJwk[]> | null = null;
      const load = (): Promise<SigningJwk[]> => {
        keys ??= loadSigningKeys(config.oidc.signingKeyPem, signingKeys).catch((e: unknown) => {
          keys = null;
          throw e;
        });
        return keys;
      };
      return new DeliverLogoutsUseCase(deliveries, clients, new HttpLogoutTokenSender(load, SEND_TIMEOUT_MS), clock, audit, {
        issuer: config.appUrl,
        retry: { ...DEFAULT_LOGOUT_RETRY, boundMs: config.oidc.backchannelLogoutRetrySeconds * 1000 },
        leaseMs: LEASE_MS,
        batch: BATCH,
      });
    },
    [TOKENS.LogoutDeliveries, TOKENS.OidcClients, TOKENS.SigningKeys, TOKENS.Clock, TOKENS.AuditLog],
  );
  bind(
    TOKENS.LogoutDeliveryWorker,
    (deliver: DeliverLogoutsUseCase, logger: Logger, resources: Resources) => {
      const worker = new LogoutDeliveryWorker(deliver, BATCH, POLL_MS, logger);
      if (config.oidc.clients.some((client) => client.backchannelLogout !== undefined)) {
        // After the stores opened (the queue reads them); closed before them.
        resources.afterStart(async () => worker.start());
        resources.add(() => worker.stop());
      }
      return worker;
    },
    [TOKENS.DeliverLogoutsUseCase, TOKENS.Logger, TOKENS.Resources],
  );
}
