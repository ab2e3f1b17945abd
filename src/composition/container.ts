import { ClientAddressResolver } from '../adapters/http/client-address';
import type { HttpSettings } from '../adapters/http/http-settings';
import { AesGcmSessionSealer } from '../adapters/crypto/aes-gcm-session-sealer';
import { BcryptPasswordHasher } from '../adapters/crypto/bcrypt-password-hasher';
import { KeyedHashVerifiedCredentials } from '../adapters/crypto/keyed-hash-verified-credentials';
import { HmacCredentialFingerprints } from '../adapters/crypto/hmac-credential-fingerprints';
import { OtplibTotpVerifier } from '../adapters/crypto/otplib-totp-verifier';
import { InMemoryLoginAttempts } from '../adapters/state/memory/in-memory-login-attempts';
import { InMemoryRevokedSessions } from '../adapters/state/memory/in-memory-revoked-sessions';
import { InMemoryUsedTotpSteps } from '../adapters/state/memory/in-memory-used-totp-steps';
import { SqliteDatabase } from '../adapters/state/sqlite/sqlite-database';
import { SqliteLoginAttempts } from '../adapters/state/sqlite/sqlite-login-attempts';
import { SqliteRevokedSessions } from '../adapters/state/sqlite/sqlite-revoked-sessions';
import { SqliteUsedOAuthFlows } from '../adapters/state/sqlite/sqlite-used-oauth-flows';
import { SqliteUsedTotpSteps } from '../adapters/state/sqlite/sqlite-used-totp-steps';
import type { EnrolledTotpSecrets } from '../application/totp/enrolled-totp-secrets';
import { GatewayLifecycle } from '../adapters/system/lifecycle';
import { LoggerAuditLog, type Logger } from '../adapters/system/logger';
import { PinoLogger } from '../adapters/system/pino-logger';
import { RandomIdGenerator } from '../adapters/system/random-id-generator';
import { SystemClock } from '../adapters/system/system-clock';
import { InMemoryAccessRulesSource } from '../adapters/rules/in-memory-access-rules-source';
import { YamlFileAccessRulesSource } from '../adapters/rules/yaml-file-access-rules-source';
import type { AccessRulesSource } from '../application/forward-auth/access-rules-source';
import { RulesAccessPolicy } from '../application/forward-auth/rules-access-policy';
import { allowAuthenticatedRules } from '../domain/access-rules';
import { typicalBcryptCost } from '../adapters/users/users-list';
import type { AccessPolicy } from '../application/forward-auth/access-policy';
import type { AuditLog } from '../application/ports/audit-log';
import type { Clock } from '../application/ports/clock';
import type { IdGenerator } from '../application/ports/id-generator';
import type { LoginAttempts } from '../application/password/login-attempts';
import type { OAuthProvider } from '../application/ports/oauth-provider';
import type { OAuthProviders } from '../application/ports/oauth-providers';
import type { OAuthFlowSealer } from '../application/oauth/oauth-flow-sealer';
import type { Pkce } from '../application/oauth/pkce';
import type { UsedOAuthFlows } from '../application/ports/used-oauth-flows';
import { AesGcmOAuthFlowSealer } from '../adapters/crypto/aes-gcm-oauth-flow-sealer';
import { NodeCryptoPkce } from '../adapters/crypto/node-crypto-pkce';
import { InMemoryUsedOAuthFlows } from '../adapters/state/memory/in-memory-used-oauth-flows';
import { ConfiguredOAuthProviders } from '../adapters/providers/configured-oauth-providers';
import { StartOAuthUseCase } from '../application/oauth/start-oauth';
import { CompleteOAuthUseCase } from '../application/oauth/complete-oauth';
import { MAX_LIVE_OAUTH_FLOWS, OAUTH_FLOW_LIFETIME_MS } from '../domain/oauth-flow';
import type { PasswordHasher } from '../application/ports/password-hasher';
import type { ReadinessCheck } from '../application/readiness/readiness-check';
import type { RevokedSessions } from '../application/ports/revoked-sessions';
import type { SessionSealer } from '../application/ports/session-sealer';
import type { TotpVerifier } from '../application/ports/totp-verifier';
import type { UsedTotpSteps } from '../application/ports/used-totp-steps';
import type { UserStore } from '../application/ports/user-store';
import type { VerifiedCredentials } from '../application/sessions/verified-credentials';
import type { CredentialFingerprints } from '../application/ports/credential-fingerprints';
import { AllowAuthenticatedPolicy } from '../application/forward-auth/allow-authenticated-policy';
import { CredentialCheck } from '../application/password/credential-check';
import { SessionIssuer } from '../application/sessions/session-issuer';
import { LoginGuard } from '../application/password/login-guard';
import type { RequestAuthenticator } from '../application/sessions/request-authenticator';
import type { GatewaySettings, OAuthProviderPolicy, OAuthSettings } from '../application/settings';
import { CheckReadinessUseCase } from '../application/readiness/check-readiness';
import { AuthorizeProxyRequestUseCase } from '../application/forward-auth/authorize-proxy-request';
import { loginTargetsOf } from '../application/forward-auth/login-targets';
import { LoginTargetMemo } from '../adapters/http/login-target-memo';
import { GetCurrentUserUseCase } from '../application/sessions/get-current-user';
import { LoginUseCase } from '../application/password/login';
import type { PasskeySecondFactor } from '../application/passkeys/passkey-second-factor';
import { PendingSecondFactors } from '../application/sessions/pending-second-factors';
import type { PasskeyCredentials } from '../application/passkeys/passkey-credentials';
import { LogoutUseCase } from '../application/sessions/logout';
import { VerifyTotpUseCase } from '../application/totp/verify-totp';
import { lockPolicy } from '../domain/login-failures';
import type { Config } from './config';
import { gatewayDomainsOf, protectedDomainOfAppUrl } from './cookie-domain';
import { bindHandoff } from './handoff';
import { identityAssertionsOf, providerKeySet } from './identity-assertions';
import type { SigningKeys } from '../application/oidc/signing-keys';
import type { SubjectIdentifiers } from '../application/oidc/subject-identifiers';
import type { IdentityAssertions } from '../application/forward-auth/identity-assertions';
import { Resources } from './resources';
import { buildUserStore } from './user-stores';
import { TypedContainer, type Overrides, type Wiring } from './binding';
import type { DatabaseHolder, MetricsHolder, PostgresHolder, RedisHolder } from './holders';
import { TOKENS } from './tokens';
import { optionalModules, terminalLogStream } from './optional-modules';
import { makeRequestAuthenticator } from './request-authenticator';
import { demoForwardAuth } from './demo';
import { bindPasskeyCredentials } from './passkeys';
import { bindOidc } from './oidc';
import { bindAccount } from './account';
import { bindTotpEnrolment } from './totp-enrolment';
import type { SessionIndex } from '../application/ports/session-index';
import type { LastSeenRecorder } from '../application/sessions/last-seen-recorder';
import { postgresState, redisState } from './state-adapters';
import { bindDurable } from './durable-state';
import { lazyModule } from '../adapters/system/lazy-module';

export type { Overrides, Wiring } from './binding';
export type { DatabaseHolder, MetricsHolder, PostgresHolder, RedisHolder } from './holders';

/**
 * The code of the OAuth provider adapters and of the Prometheus metrics loads with the feature,
 * like simple-oauth2 and prom-client themselves (ADR 0015): a gateway without an OAuth provider or
 * METRICS_PORT never carries it.
 */
const providerAdapters = lazyModule(() => ({
  ...(require('../adapters/providers/github-oauth-provider') as typeof import('../adapters/providers/github-oauth-provider')),
  ...(require('../adapters/providers/google-oauth-provider') as typeof import('../adapters/providers/google-oauth-provider')),
  ...(require('../adapters/providers/generic-oauth-provider') as typeof import('../adapters/providers/generic-oauth-provider')),
}));
const prometheusMetrics = lazyModule(() => require('../adapters/metrics/prometheus-metrics') as typeof import('../adapters/metrics/prometheus-metrics'));

/** The provider adapters the configuration turns on. */
function oauthProvidersOf(config: Config): OAuthProviders {
  const { github, google, generic, providers, timeoutSeconds } = config.oauth;
  const timeoutMs = timeoutSeconds * 1000;
  const list: OAuthProvider[] = [];
  if (github)
    list.push(
      new (providerAdapters().GitHubOAuthProvider)(
        { clientId: github.clientId, clientSecret: github.clientSecret, webUrl: github.url, apiUrl: github.apiUrl, timeoutMs, groups: github.groups },
        optionalModules.simpleOAuth2(),
      ),
    );
  if (google) list.push(new (providerAdapters().GoogleOAuthProvider)({ ...google, timeoutMs }, optionalModules.simpleOAuth2()));
  for (const p of [...(generic ? [generic] : []), ...providers])
    list.push(new (providerAdapters().GenericOAuthProvider)({ ...p, timeoutMs }, optionalModules.simpleOAuth2()));
  return new ConfiguredOAuthProviders(list);
}

/** Each provider's own admission rules: its whitelist, GitHub's organisations, Google's Workspace domains. */
function oauthPoliciesOf(config: Config): Record<string, OAuthProviderPolicy> {
  const { github, google, generic, providers } = config.oauth;
  const policies: Record<string, OAuthProviderPolicy> = {};
  if (github && github.orgs.length > 0) policies.github = { requiredGroups: github.orgs };
  if (google && (google.hostedDomains ?? []).length > 0) policies.google = { hostedDomains: google.hostedDomains };
  for (const p of [...(generic ? [generic] : []), ...providers]) if (p.whitelist !== undefined) policies[p.id] = { whitelist: p.whitelist };
  return policies;
}

/** How long one readiness probe of a store may take before it counts as down. */
const READINESS_TIMEOUT_MS = 1000;

/**
 * Wires every port, service and use case for `config`. Everything is a singleton: the gateway
 * holds one of each for its lifetime.
 */
export function buildContainer(config: Config, overrides: Overrides = {}): Wiring {
  const c = new TypedContainer(overrides);
  const bind = c.bind.bind(c) as TypedContainer['bind'];
  const domain = protectedDomainOfAppUrl(config.appUrl);

  bind(TOKENS.Config, () => config);
  bind(TOKENS.Settings, (): GatewaySettings => ({
    sessionLifetimeMs: config.sessionExpirySeconds * 1000,
    lock: lockPolicy(config.loginMaxRetries, config.loginTimeoutSeconds),
    protectedDomain: domain,
    ...(config.appUrls.length > 1 ? { secondaryDomains: gatewayDomainsOf(config.appUrls.slice(1)).map((g) => g.domain) } : {}),
    basicCacheTtlMs: config.basicCacheTtlSeconds * 1000,
  }));
  bind(TOKENS.Logger, (): Logger => new PinoLogger({ level: config.logLevel, destination: terminalLogStream() }));
  bind(
    TOKENS.Redis,
    (logger: Logger): RedisHolder => ({
      connection:
        config.redis === null
          ? null
          : new (redisState().RedisConnection)({ ioredis: optionalModules.ioredis(), target: config.redis, prefix: config.redisPrefix, logger }),
    }),
    [TOKENS.Logger],
  );
  bind(
    TOKENS.Database,
    (logger: Logger, clock: Clock): DatabaseHolder => ({
      database:
        config.redis === null && config.database === null && config.dataDir !== null
          ? SqliteDatabase.create(config.dataDir, { driver: optionalModules.betterSqlite3(), logger, clock })
          : null,
    }),
    [TOKENS.Logger, TOKENS.Clock],
  );
  bind(
    TOKENS.Postgres,
    (logger: Logger, clock: Clock): PostgresHolder => ({
      postgres: config.database === null ? null : new (postgresState().PostgresDatabase)({ pg: optionalModules.pg(), target: config.database, logger, clock }),
    }),
    [TOKENS.Logger, TOKENS.Clock],
  );
  bind(
    TOKENS.Metrics,
    (redis: RedisHolder, data: DatabaseHolder, pg: PostgresHolder): MetricsHolder => ({
      metrics:
        config.metricsPort === null
          ? null
          : new (prometheusMetrics().PrometheusMetrics)(optionalModules.promClient(), [
              ...(redis.connection === null ? [] : [redis.connection]),
              ...(data.database === null ? [] : [data.database]),
              ...(pg.postgres === null ? [] : [pg.postgres]),
            ]),
    }),
    [TOKENS.Redis, TOKENS.Database, TOKENS.Postgres],
  );
  bind(
    TOKENS.AuditLog,
    (logger: Logger, m: MetricsHolder): AuditLog => {
      const audit = new LoggerAuditLog(logger);
      return m.metrics === null ? audit : new (prometheusMetrics().MetricsAuditLog)(audit, m.metrics);
    },
    [TOKENS.Logger, TOKENS.Metrics],
  );
  bind(TOKENS.Lifecycle, () => new GatewayLifecycle());
  bind(
    TOKENS.ReadinessChecks,
    (lifecycle: GatewayLifecycle, redis: RedisHolder, revoked: RevokedSessions, pg: PostgresHolder, enrolled: EnrolledTotpSecrets): ReadinessCheck[] => [
      lifecycle,
      ...(redis.connection === null ? [] : [redis.connection]),
      ...(pg.postgres === null ? [] : [pg.postgres]),
      // A replica that has not loaded the shared revocations yet refuses cookies (503): not ready until it has.
      ...((redis.connection !== null && revoked instanceof redisState().RedisRevokedSessions) ||
      (pg.postgres !== null && revoked instanceof postgresState().PostgresRevokedSessions)
        ? [revoked]
        : []),
      // Nor the self-enrolled TOTP secrets: logins and HTTP Basic answer 503 until it has.
      ...(redis.connection !== null && enrolled instanceof redisState().RedisEnrolledTotpSecrets ? [enrolled] : []),
    ],
    [TOKENS.Lifecycle, TOKENS.Redis, TOKENS.RevokedSessions, TOKENS.Postgres, TOKENS.EnrolledTotpSecrets],
  );
  bind(TOKENS.CheckReadinessUseCase, (checks: ReadinessCheck[]) => new CheckReadinessUseCase(checks, READINESS_TIMEOUT_MS), [TOKENS.ReadinessChecks]);
  bind(TOKENS.Clock, (): Clock => new SystemClock());
  bind(TOKENS.IdGenerator, (): IdGenerator => new RandomIdGenerator());
  bind(TOKENS.PasswordHasher, (): PasswordHasher => {
    // The decoy for unknown names costs what most configured hashes cost, so they answer in the same time.
    // The decoy hash is made in gateway.start(), off the event loop (a factory only constructs).
    return new BcryptPasswordHasher(10, typicalBcryptCost([...config.users, ...(config.usersFile?.entries ?? [])]) ?? 10);
  });
  bind(TOKENS.TotpVerifier, (): TotpVerifier => new OtplibTotpVerifier(optionalModules.otplib));
  bindDurable(c, TOKENS.UsedTotpSteps, [TOKENS.Clock], (clock: Clock) => ({
    redis: (redis, { RedisUsedTotpSteps }) => new RedisUsedTotpSteps(redis, clock),
    postgres: (pg, { PostgresUsedTotpSteps }) => new PostgresUsedTotpSteps(pg, clock),
    sqlite: (db) => new SqliteUsedTotpSteps(db, clock),
    memory: () => new InMemoryUsedTotpSteps(clock),
  }));
  bindDurable(c, TOKENS.LoginAttempts, [TOKENS.Clock], (clock: Clock) => ({
    redis: (redis, { RedisLoginAttempts }) => new RedisLoginAttempts(redis),
    postgres: (pg, { PostgresLoginAttempts }) => new PostgresLoginAttempts(pg, clock),
    sqlite: (db) => new SqliteLoginAttempts(db, clock),
    memory: () => new InMemoryLoginAttempts(),
  }));
  bind(TOKENS.SessionSealer, (): SessionSealer => new AesGcmSessionSealer(config.secret));
  // Revocations are durable records: in PostgreSQL whenever it is configured, Redis or not.
  bindDurable(
    c,
    TOKENS.RevokedSessions,
    [TOKENS.Clock, TOKENS.Logger],
    (clock: Clock, logger: Logger) => ({
      // Subscribed and loaded in gateway.start(); until then it is not ready and refuses cookies (503).
      redis: (redis, { RedisRevokedSessions }) => new RedisRevokedSessions(redis, clock, logger),
      postgres: (pg, { PostgresRevokedSessions }) => new PostgresRevokedSessions(pg, clock),
      sqlite: (db) => new SqliteRevokedSessions(db, clock),
      memory: () => new InMemoryRevokedSessions(clock),
    }),
    'records',
  );
  bind(TOKENS.VerifiedCredentials, (): VerifiedCredentials => new KeyedHashVerifiedCredentials(config.secret));
  bind(TOKENS.CredentialFingerprints, (): CredentialFingerprints => new HmacCredentialFingerprints(config.secret));
  bind(TOKENS.Resources, () => new Resources());
  bind(
    TOKENS.StoreUsers,
    (hasher: PasswordHasher, clock: Clock, logger: Logger, resources: Resources): UserStore =>
      buildUserStore(config, domain.domain, { hasher, clock, logger, resources }),
    [TOKENS.PasswordHasher, TOKENS.Clock, TOKENS.Logger, TOKENS.Resources],
  );
  // With ACCESS_CONFIG the rules file decides (reloaded on change); without it, every logged-in person passes.
  bind(
    TOKENS.AccessRulesSource,
    (logger: Logger): AccessRulesSource =>
      config.accessConfig === null
        ? new InMemoryAccessRulesSource(allowAuthenticatedRules())
        : new YamlFileAccessRulesSource(config.accessConfig, optionalModules.yaml(), {
            logger,
            // The rules loadConfig read and validated: the file is not read a second time. Watched from gateway.start().
            initial: config.accessRules ?? undefined,
            watch: false,
          }),
    [TOKENS.Logger],
  );
  bind(
    TOKENS.AccessPolicy,
    (source: AccessRulesSource, logger: Logger): AccessPolicy =>
      config.accessConfig === null
        ? new AllowAuthenticatedPolicy()
        : new RulesAccessPolicy(source, (e) =>
            logger.error('access rules evaluation failed; request denied', { error: e instanceof Error ? e.name : 'unknown' }),
          ),
    [TOKENS.AccessRulesSource, TOKENS.Logger],
  );
  bind(TOKENS.OAuthProviders, (): OAuthProviders => oauthProvidersOf(config));
  bind(TOKENS.OAuthSettings, (): OAuthSettings => {
    return {
      appUrl: config.appUrl,
      whitelist: config.oauth.whitelist,
      policies: oauthPoliciesOf(config),
      flowLifetimeMs: OAUTH_FLOW_LIFETIME_MS,
      maxLiveFlows: MAX_LIVE_OAUTH_FLOWS,
    };
  });
  bind(TOKENS.OAuthFlowSealer, (): OAuthFlowSealer => new AesGcmOAuthFlowSealer(config.secret));
  bindDurable(c, TOKENS.UsedOAuthFlows, [TOKENS.Clock], (clock: Clock) => ({
    redis: (redis, { RedisUsedOAuthFlows }) => new RedisUsedOAuthFlows(redis, clock),
    postgres: (pg, { PostgresUsedOAuthFlows }) => new PostgresUsedOAuthFlows(pg, clock),
    sqlite: (db) => new SqliteUsedOAuthFlows(db, clock),
    memory: () => new InMemoryUsedOAuthFlows(clock),
  }));
  bind(TOKENS.Pkce, (): Pkce => new NodeCryptoPkce());
  bindPasskeyCredentials(c);
  bindAccount(c);
  bindTotpEnrolment(c);

  bind(
    TOKENS.LoginGuard,
    (attempts: LoginAttempts, clock: Clock, settings: GatewaySettings, audit: AuditLog) => new LoginGuard(attempts, clock, settings, audit),
    [TOKENS.LoginAttempts, TOKENS.Clock, TOKENS.Settings, TOKENS.AuditLog],
  );
  bind(
    TOKENS.CredentialCheck,
    (...d: [UserStore, LoginGuard, TotpVerifier, UsedTotpSteps, AuditLog, CredentialFingerprints, PasskeySecondFactor]) =>
      // Issue 16: HTTP Basic is refused for an account that owes a passkey after its password, as for a TOTP account.
      new CredentialCheck(
        ...(d.slice(0, 6) as [UserStore, LoginGuard, TotpVerifier, UsedTotpSteps, AuditLog, CredentialFingerprints]),
        config.passkeys ? d[6] : null,
      ),
    [
      TOKENS.UserStore,
      TOKENS.LoginGuard,
      TOKENS.TotpVerifier,
      TOKENS.UsedTotpSteps,
      TOKENS.AuditLog,
      TOKENS.CredentialFingerprints,
      TOKENS.PasskeySecondFactor,
    ],
  );
  bind(
    TOKENS.RequestAuthenticator,
    (
      sealer: SessionSealer,
      revoked: RevokedSessions,
      users: UserStore,
      verified: VerifiedCredentials,
      guard: LoginGuard,
      credentials: CredentialCheck,
      clock: Clock,
      settings: GatewaySettings,
      audit: AuditLog,
      fingerprints: CredentialFingerprints,
      providers: OAuthProviders,
      oauth: OAuthSettings,
      lastSeen: LastSeenRecorder,
    ) =>
      makeRequestAuthenticator({
        sealer,
        revoked,
        users,
        verified,
        guard,
        credentials,
        clock,
        settings,
        audit,
        fingerprints,
        providers,
        oauth,
        activity: lastSeen,
      }),
    [
      TOKENS.SessionSealer,
      TOKENS.RevokedSessions,
      TOKENS.UserStore,
      TOKENS.VerifiedCredentials,
      TOKENS.LoginGuard,
      TOKENS.CredentialCheck,
      TOKENS.Clock,
      TOKENS.Settings,
      TOKENS.AuditLog,
      TOKENS.CredentialFingerprints,
      TOKENS.OAuthProviders,
      TOKENS.OAuthSettings,
      TOKENS.LastSeenRecorder,
    ],
  );
  bind(TOKENS.SessionIssuer, (...d: [IdGenerator, Clock, GatewaySettings, SessionIndex, AuditLog, SessionSealer]) => new SessionIssuer(...d), [
    TOKENS.IdGenerator,
    TOKENS.Clock,
    TOKENS.Settings,
    TOKENS.SessionIndex,
    TOKENS.AuditLog,
    TOKENS.SessionSealer,
  ]);
  bind(
    TOKENS.LoginUseCase,
    // PASSKEY_SECOND_FACTOR, or the account's own choice (issue 16): an account holding a passkey owes it after its password.
    (credentials: CredentialCheck, sessions: SessionIssuer, passkeys: PasskeySecondFactor) =>
      new LoginUseCase(credentials, sessions, config.passkeys ? passkeys : null),
    [TOKENS.CredentialCheck, TOKENS.SessionIssuer, TOKENS.PasskeySecondFactor],
  );
  bind(TOKENS.VerifyTotpUseCase, (...d: [RevokedSessions, RequestAuthenticator, CredentialCheck, Clock, SessionIssuer]) => new VerifyTotpUseCase(...d), [
    TOKENS.RevokedSessions,
    TOKENS.RequestAuthenticator,
    TOKENS.CredentialCheck,
    TOKENS.Clock,
    TOKENS.SessionIssuer,
  ]);
  bind(TOKENS.LogoutUseCase, (...d: [RequestAuthenticator, RevokedSessions, AuditLog]) => new LogoutUseCase(...d), [
    TOKENS.RequestAuthenticator,
    TOKENS.RevokedSessions,
    TOKENS.AuditLog,
  ]);
  bind(
    TOKENS.GetCurrentUserUseCase,
    (a: RequestAuthenticator, users: UserStore, passkeys: PasskeyCredentials) =>
      new GetCurrentUserUseCase(a, new PendingSecondFactors(users, config.passkeys ? passkeys : null)),
    [TOKENS.RequestAuthenticator, TOKENS.UserStore, TOKENS.PasskeyCredentials],
  );
  bind(
    TOKENS.IdentityAssertions,
    (subjects: SubjectIdentifiers, keys: SigningKeys, clock: Clock, logger: Logger) =>
      identityAssertionsOf(config, subjects, clock, logger, providerKeySet(config, keys)),
    [TOKENS.SubjectIdentifiers, TOKENS.SigningKeys, TOKENS.Clock, TOKENS.Logger],
  );
  bind(
    TOKENS.AuthorizeProxyRequestUseCase,
    (a: RequestAuthenticator, p: AccessPolicy, s: GatewaySettings, audit: AuditLog, assertions: IdentityAssertions) =>
      new AuthorizeProxyRequestUseCase(a, p, new LoginTargetMemo(loginTargetsOf(s)), audit, assertions),
    [TOKENS.RequestAuthenticator, TOKENS.AccessPolicy, TOKENS.Settings, TOKENS.AuditLog, TOKENS.IdentityAssertions],
  );
  bind(
    TOKENS.StartOAuthUseCase,
    (...d: [OAuthProviders, OAuthFlowSealer, Pkce, IdGenerator, Clock, GatewaySettings, OAuthSettings]) => new StartOAuthUseCase(...d),
    [TOKENS.OAuthProviders, TOKENS.OAuthFlowSealer, TOKENS.Pkce, TOKENS.IdGenerator, TOKENS.Clock, TOKENS.Settings, TOKENS.OAuthSettings],
  );
  bind(
    TOKENS.CompleteOAuthUseCase,
    (...d: [OAuthProviders, OAuthFlowSealer, UsedOAuthFlows, Clock, GatewaySettings, OAuthSettings, AuditLog, SessionIssuer]) => new CompleteOAuthUseCase(...d),
    [
      TOKENS.OAuthProviders,
      TOKENS.OAuthFlowSealer,
      TOKENS.UsedOAuthFlows,
      TOKENS.Clock,
      TOKENS.Settings,
      TOKENS.OAuthSettings,
      TOKENS.AuditLog,
      TOKENS.SessionIssuer,
    ],
  );
  bind(
    TOKENS.HttpSettings,
    (providers: OAuthProviders, logger: Logger, m: MetricsHolder): HttpSettings => ({
      appUrl: config.appUrl,
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
        backgroundImage: config.backgroundImage,
        demo: config.demo ? { forwardAuth: demoForwardAuth(config) } : null,
        language: config.uiLanguage,
        languages: config.uiLanguages,
        configuredProviders: [...providers.ids(), ...(config.users.length > 0 || config.usersFile !== null || config.ldap !== null ? ['username'] : [])],
        // tinyauth v4's shape: every login the page offers, with the name its button shows.
        providers: [
          ...providers.ids().map((id) => ({ id, name: providers.get(id)?.name ?? id, oauth: true })),
          ...(config.users.length > 0 || config.usersFile !== null || config.ldap !== null ? [{ id: 'username', name: 'Username', oauth: false }] : []),
        ],
      },
      clientAddress: new ClientAddressResolver(config.trustedProxies),
      providers,
      logger,
      metrics: m.metrics ?? undefined,
    }),
    [TOKENS.OAuthProviders, TOKENS.Logger, TOKENS.Metrics],
  );
  bindOidc(c, config);
  bindHandoff(c, config);
  return c;
}
