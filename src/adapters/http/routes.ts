import Router from '@koa/router';
import type { Context } from 'koa';
import type { CheckReadinessUseCase } from '../../application/readiness/check-readiness';
import type { GetCurrentUserUseCase } from '../../application/sessions/get-current-user';
import type { LoginUseCase } from '../../application/password/login';
import type { LogoutUseCase } from '../../application/sessions/logout';
import type { TakeFrontchannelLogoutsUseCase } from '../../application/oidc/frontchannel-logouts';
import type { VerifyTotpUseCase } from '../../application/totp/verify-totp';
import { currentUserAnswer, healthAnswer, invalidFields, loginAnswer, logoutAnswer, OK, readinessAnswer, totpAnswer } from './answers';
import { answer } from './answer';
import { NO_METRICS } from './http-metrics';
import { JSON_TYPES, jsonBody, jsonOnly } from './json-body';
import { callerOf, koaFacts, userAgentOf } from './koa-facts';
import { renderAnswer } from './koa-renderer';
import { oauthRoutes, type OAuthUseCases } from './oauth-routes';
import { passkeyRoutes, type PasskeyUseCases } from './passkey-routes';
import { handoffRoutes, type HandoffUseCases } from './handoff-routes';
import { gatewayHostsOf, gatewayIndexOf } from './gateway-hosts';
import { ACCOUNT_API_METHODS, accountRoutes, type AccountUseCases } from './account-routes';
import { PASSWORD_CHANGE_API_METHODS, passwordChangeRoutes, type PasswordChangeUseCases } from './password-change-routes';
import { TOTP_ENROLMENT_API_METHODS, totpEnrolmentRoutes, type TotpEnrolmentUseCases } from './totp-enrolment-routes';
import { tokenRoutes, type TokenUseCases } from './token-routes';
import { STEP_UP_API_METHODS, stepUpRoutes, type StepUpUseCases } from './step-up-routes';
import { isFromThisSite } from './request-origin';
import { adminAuditRoutes } from './admin-audit-routes';
import { adminRoutes, type AdminUseCases } from './admin-routes';
import { adminAppsRoutes } from './admin-apps-routes';
import { adminInvitationRoutes, type AdminInvitationUseCases } from './admin-invitation-routes';
import { lazyModule } from '../system/lazy-module';
import type { HttpSettings } from './http-settings';

// The DTOs pull in class-validator (about 5 MB of heap): loaded with the first login, not at start-up.
const dtos = lazyModule(() => require('./dtos') as typeof import('./dtos'));

/** The use cases the HTTP adapter drives. */
export interface GatewayUseCases extends OAuthUseCases, AccountUseCases, Partial<HandoffUseCases> {
  readonly login: LoginUseCase;
  readonly verifyTotp: VerifyTotpUseCase;
  readonly logout: LogoutUseCase;
  readonly getCurrentUser: GetCurrentUserUseCase;
  readonly checkReadiness: CheckReadinessUseCase;
  /** Absent when PASSKEYS=off: no passkey route exists then. */
  readonly passkeys?: PasskeyUseCases;
  /** Access tokens on the account page (issue 32); absent with TOKENS=false: no token route exists then. */
  readonly tokens?: TokenUseCases;
  /** The login page's step-up (issue 33); absent in hosts built without it. */
  readonly stepUp?: StepUpUseCases;
  /** Issue 35: the front-channel logout pages of a session that just ended; absent: none. */
  readonly takeFrontchannelLogouts?: TakeFrontchannelLogoutsUseCase;
  /** Setting up a TOTP code on the account page (issue 16); absent in hosts built without it. */
  readonly totpEnrolment?: TotpEnrolmentUseCases;
  /** Changing one's own password on the account page (issue 36); absent in hosts built without it. */
  readonly passwordChange?: PasswordChangeUseCases;
  /** The admin console's API (issue 36); absent without ADMIN_GROUPS: every admin route answers 404 then. */
  readonly admin?: AdminUseCases;
  /** Invitations, password resets and a person's second factors (issue 36); used only with `admin`. */
  readonly adminInvitations?: AdminInvitationUseCases;
}

/** The API routes and the methods each accepts; the 404/405 fallback reads this table too. */
export const API_METHODS: ReadonlyMap<string, readonly string[]> = new Map([
  ['/api/healthcheck', ['GET', 'HEAD']],
  ['/api/ready', ['GET', 'HEAD']],
  ['/api/health', ['GET', 'HEAD']],
  ['/api/login', ['POST']],
  ['/api/totp', ['POST']],
  ['/api/logout', ['POST']],
  ['/api/app', ['GET', 'HEAD']],
  ['/api/user', ['GET', 'HEAD']],
  ['/api/handoff/start', ['GET', 'HEAD']],
  ['/api/handoff/issue', ['GET', 'HEAD']],
  ['/api/handoff/redeem', ['GET', 'HEAD']],
  ...ACCOUNT_API_METHODS,
  ...PASSWORD_CHANGE_API_METHODS,
  ...TOTP_ENROLMENT_API_METHODS,
  ...STEP_UP_API_METHODS,
]);

export function apiRoutes(useCases: GatewayUseCases, settings: HttpSettings): Router {
  const router = new Router({ prefix: '/api' });
  const json = jsonOnly(jsonBody({ types: JSON_TYPES, limit: '64kb' }));
  const facts = (ctx: Context) => koaFacts(ctx, settings.clientAddress);
  const caller = (ctx: Context) => callerOf(ctx, settings.clientAddress);
  const metrics = settings.metrics ?? NO_METRICS;
  // Issue 17: each gateway URL sets and clears the cookie of its own domain and reports that domain.
  const hosts = gatewayHostsOf(settings);
  const cookiesOf = (ctx: Context) => hosts[gatewayIndexOf(hosts, ctx)].cookies;

  // Liveness: the process answers. Readiness (below) asks the stores.
  router.get('/healthcheck', (ctx) => renderAnswer(ctx, OK));

  // Readiness for load balancers: this replica can answer forward auth. A shared store (Redis,
  // PostgreSQL) being down degrades logins on every replica alike, so it is reported, not fatal:
  // taking every replica out would turn "no new logins" into "no access at all".
  router.get('/ready', async (ctx) => renderAnswer(ctx, readinessAnswer(await useCases.checkReadiness.execute({ scope: 'forward_auth' }))));

  // Every dependency, for monitoring and alerts: 503 while any store is down.
  router.get('/health', async (ctx) => renderAnswer(ctx, healthAnswer(await useCases.checkReadiness.execute({ scope: 'every_dependency' }))));

  router.post('/login', json, async (ctx) => {
    const raw = ctx.request.body as Record<string, unknown> | undefined;
    const source = raw !== null && typeof raw === 'object' && raw.email === undefined && raw.username !== undefined ? { ...raw, email: raw.username } : raw;
    const input = await dtos().readBody(dtos().LoginBody, source, ['email', 'password', 'remember']);
    if (!input.ok) return renderAnswer(ctx, invalidFields(input.fields));
    const { ip, requestId } = facts(ctx);
    const { email: login, password, remember } = input.value;
    const result = await useCases.login.execute({ login, password, remember: remember === true, ip, requestId, userAgent: userAgentOf(ctx) });
    if (!result.ok && result.error.code === 'account_locked') metrics.login('password', 'locked');
    if (!result.ok && result.error.code === 'store_unavailable') metrics.login('password', 'unavailable');
    renderAnswer(ctx, loginAnswer(result, cookiesOf(ctx)));
  });

  router.post('/totp', json, async (ctx) => {
    const input = await dtos().readBody(dtos().TotpBody, ctx.request.body, ['code']);
    if (!input.ok) return renderAnswer(ctx, invalidFields(input.fields));
    const result = await useCases.verifyTotp.execute({ ...caller(ctx), code: input.value.code, userAgent: userAgentOf(ctx) });
    if (!result.ok && result.error.code === 'account_locked') metrics.login('totp', 'locked');
    if (!result.ok && result.error.code === 'store_unavailable') metrics.login('totp', 'unavailable');
    renderAnswer(ctx, totpAnswer(result, cookiesOf(ctx)));
  });

  router.post('/logout', async (ctx) => {
    const host = hosts[gatewayIndexOf(hosts, ctx)];
    const fromThisSite = isFromThisSite(ctx.req.headers, host.origin);
    const result = await useCases.logout.execute({ ...caller(ctx), fromThisSite });
    // Issue 35: the apps' front-channel logout pages, for the page to load in hidden frames.
    const id = result.ok ? result.value.sessionId : undefined;
    const pages = id === undefined ? [] : ((await useCases.takeFrontchannelLogouts?.execute(id)) ?? []);
    renderAnswer(ctx, logoutAnswer(result, host.cookies, pages));
  });

  const appAnswers = hosts.map((h) => answer(200, 'ok', [], { fields: { ...h.app } }));
  router.get('/app', (ctx) => renderAnswer(ctx, appAnswers[gatewayIndexOf(hosts, ctx)]));

  router.get('/user', async (ctx) => {
    const { ip, requestId, sessionToken, credentials } = facts(ctx);
    renderAnswer(ctx, currentUserAnswer(await useCases.getCurrentUser.execute({ sessionToken, credentials, ip, requestId }), cookiesOf(ctx)));
  });

  oauthRoutes(router, useCases, settings);
  if (useCases.passkeys !== undefined) passkeyRoutes(router, useCases.passkeys, settings);
  if (useCases.issueHandoffCode !== undefined && useCases.redeemHandoffCode !== undefined)
    handoffRoutes(router, { issueHandoffCode: useCases.issueHandoffCode, redeemHandoffCode: useCases.redeemHandoffCode }, settings);
  accountRoutes(router, useCases, settings);
  if (useCases.totpEnrolment !== undefined) totpEnrolmentRoutes(router, useCases.totpEnrolment, settings);
  if (useCases.passwordChange !== undefined) passwordChangeRoutes(router, useCases.passwordChange, settings);
  if (useCases.tokens !== undefined) tokenRoutes(router, useCases.tokens, settings);
  if (useCases.stepUp !== undefined) stepUpRoutes(router, useCases.stepUp, settings);
  if (useCases.admin !== undefined) {
    adminRoutes(router, useCases.admin, settings);
    adminAppsRoutes(router, useCases.admin, settings);
    adminAuditRoutes(router, useCases.admin, settings);
    if (useCases.adminInvitations !== undefined) adminInvitationRoutes(router, useCases.adminInvitations, settings);
  }

  return router;
}
