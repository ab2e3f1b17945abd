import { bindAuditTrail } from './audit-trail';
import { bindAccount } from './account';
import { bindPasswordChange } from './password-change';
import { bindAdmin } from './admin';
import { bindAdminInvitations } from './admin-invitations';
import { bindAccessTokens } from './access-tokens';
import { TypedContainer, type Overrides, type Wiring } from './binding';
import type { Config } from '../config/load';
import { bindCore } from './core';
import { bindForwardAuth } from './forward-auth';
import { bindHandoff } from './handoff';
import { bindHttp } from './http';
import { bindOAuth } from './oauth';
import { bindOidc } from './oidc';
import { bindPasskeys } from './passkeys';
import { bindPassword } from './password';
import { bindSessions } from './sessions';
import { bindStepUp } from './step-up';
import { bindState } from './state';
import { TOKENS } from './tokens';
import { bindTotp } from './totp';
import { bindUsers } from './user-stores';

export type { Overrides, Wiring } from './binding';
export type { DatabaseHolder, MetricsHolder, PostgresHolder, RedisHolder } from './holders';

/**
 * Wires every port, service and use case for `config`, one binder per feature, each given its own
 * slice of the configuration. Everything is a singleton: the gateway holds one of each for its
 * lifetime. Factories only construct; what starts, is probed or closes registers with Resources.
 */
export function buildContainer(config: Config, overrides: Overrides = {}): Wiring {
  const c = new TypedContainer(overrides);
  c.bind(TOKENS.Config, () => config);
  bindCore(c, config);
  bindState(c, config);
  bindUsers(c, config);
  bindPassword(c);
  bindSessions(c, config);
  bindTotp(c, config);
  bindPasskeys(c, config);
  bindStepUp(c, config);
  bindOAuth(c, config);
  bindForwardAuth(c, config);
  bindAccount(c);
  bindPasswordChange(c, config);
  bindAdmin(c, config);
  bindAuditTrail(c, config);
  bindAdminInvitations(c, config);
  bindAccessTokens(c, config);
  bindOidc(c, config);
  bindHandoff(c, config);
  bindHttp(c, config);
  return c;
}
