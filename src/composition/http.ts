import type { HttpUseCases } from '../adapters/http/app';
import { adminUseCases } from './admin';
import { adminInvitationUseCases } from './admin-invitations';
import { ClientAddressResolver } from '../adapters/http/client-address';
import type { HttpSettings } from '../adapters/http/http-settings';
import type { Logger } from '../adapters/system/logger';
import type { OAuthProviders } from '../application/ports/oauth-providers';
import type { TypedContainer, Wiring } from './binding';
import type { Config } from '../config/load';
import { gatewayDomainsOf, protectedDomainOfAppUrl } from './cookie-domain';
import { demoForwardAuth } from './demo';
import type { MetricsHolder } from './holders';
import { passkeyUseCases } from './passkeys';
import { tokenUseCases } from './access-tokens';
import { optionalModules } from './optional-modules';
import { TOKENS } from './tokens';

/** The HTTP edge's settings: cookies, the login page's settings, client addresses, log and metrics. */
export function bindHttp(c: TypedContainer, config: Config): void {
  const domain = protectedDomainOfAppUrl(config.appUrl);
  const hasUsernameLogin = config.users.length > 0 || config.usersFile !== null || config.ldap !== null;
  c.bind(
    TOKENS.HttpSettings,
    (providers: OAuthProviders, logger: Logger, m: MetricsHolder): HttpSettings => ({
      appUrl: config.appUrl,
      adminGroups: config.adminGroups,
      cookies: { domain, secure: config.cookieSecure },
      ...(config.appUrls.length > 1
        ? { gateways: gatewayDomainsOf(config.appUrls).map((g) => ({ url: g.url, cookies: { domain: g.domain, secure: config.cookieSecure } })) }
        : {}),
      app: {
        title: config.appTitle,
        genericName: config.genericName,
        domain: domain.domain,
        forgotPasswordMessage: config.forgotPasswordMessage,
        forgotPasswordStores: config.forgotPasswordStores,
        oauthAutoRedirect: config.oauthAutoRedirect,
        disableContinue: config.disableContinue,
        passkeys: config.passkeys,
        tokens: config.tokens,
        tokenMaxLifetimeDays: config.tokenMaxLifetimeDays,
        rememberMe: config.rememberMeExpirySeconds > 0,
        backgroundImage: config.backgroundImage,
        demo: config.demo ? { forwardAuth: demoForwardAuth(config) } : null,
        language: config.uiLanguage,
        languages: config.uiLanguages,
        configuredProviders: [...providers.ids(), ...(hasUsernameLogin ? ['username'] : [])],
        // tinyauth v4's shape: every login the page offers, with the name its button shows.
        providers: [
          ...providers.ids().map((id) => ({ id, name: providers.get(id)?.name ?? id, oauth: true })),
          ...(hasUsernameLogin ? [{ id: 'username', name: 'Username', oauth: false }] : []),
        ],
      },
      clientAddress: new ClientAddressResolver(config.trustedProxies),
      frameOrigins: config.oidc.clients.flatMap((client) => (client.frontchannelLogout === undefined ? [] : [client.frontchannelLogout.uri])),
      ...(config.jwtIssuers.length === 0 ? {} : { jwtIssuers: config.jwtIssuers.map((i) => i.issuer) }),
      providers,
      logger,
      metrics: m.metrics ?? undefined,
    }),
    [TOKENS.OAuthProviders, TOKENS.Logger, TOKENS.Metrics],
  );
}

/** Every use case the HTTP adapter serves, taken from the container. */
export function httpUseCases(config: Pick<Config, 'passkeys' | 'tokens' | 'oidc' | 'adminGroups'>, w: Wiring): HttpUseCases {
  return {
    admin: adminUseCases(config, w),
    adminInvitations: adminInvitationUseCases(config, w),
    login: w.get(TOKENS.LoginUseCase),
    verifyTotp: w.get(TOKENS.VerifyTotpUseCase),
    logout: w.get(TOKENS.LogoutUseCase),
    getCurrentUser: w.get(TOKENS.GetCurrentUserUseCase),
    authorizeProxyRequest: w.get(TOKENS.AuthorizeProxyRequestUseCase),
    startOAuth: w.get(TOKENS.StartOAuthUseCase),
    completeOAuth: w.get(TOKENS.CompleteOAuthUseCase),
    upstreamBackchannelLogout: w.get(TOKENS.UpstreamLogout).backchannelLogout,
    // Only with OpenID Connect clients: without them no session has front-channel pages, and the provider's store stays unbuilt.
    ...(config.oidc.clients.length === 0 ? {} : { takeFrontchannelLogouts: w.get(TOKENS.TakeFrontchannelLogoutsUseCase) }),
    checkReadiness: w.get(TOKENS.CheckReadinessUseCase),
    passkeys: passkeyUseCases(config, w),
    tokens: tokenUseCases(config, w),
    stepUp: { describeStepUp: w.get(TOKENS.DescribeStepUpUseCase), completeStepUp: w.get(TOKENS.CompleteStepUpUseCase) },
    totpEnrolment: {
      getTotpEnrolment: w.get(TOKENS.GetTotpEnrolmentUseCase),
      startTotpEnrolment: w.get(TOKENS.StartTotpEnrolmentUseCase),
      confirmTotpEnrolment: w.get(TOKENS.ConfirmTotpEnrolmentUseCase),
      removeTotpEnrolment: w.get(TOKENS.RemoveTotpEnrolmentUseCase),
      qrcode: optionalModules.qrcode,
    },
    issueHandoffCode: w.get(TOKENS.IssueHandoffCodeUseCase),
    redeemHandoffCode: w.get(TOKENS.RedeemHandoffCodeUseCase),
    listAccountSessions: w.get(TOKENS.ListAccountSessionsUseCase),
    revokeAccountSessions: w.get(TOKENS.RevokeAccountSessionsUseCase),
    signOutOfApp: w.get(TOKENS.SignOutOfAppUseCase),
    passwordChange: { getPasswordChange: w.get(TOKENS.GetPasswordChangeUseCase), changePassword: w.get(TOKENS.ChangePasswordUseCase) },
  };
}
