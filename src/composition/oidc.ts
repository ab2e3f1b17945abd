import type Koa from 'koa';
import { deriveKey } from '../adapters/crypto/key-derivation';
import { Sha256SubjectIdentifiers } from '../adapters/crypto/sha256-subject-identifiers';
import type { HttpSettings } from '../adapters/http/http-settings';
import { assertionJwks } from '../adapters/oidc/assertion-jwks';
import type { OidcHttp, OidcProviderSettings } from '../adapters/oidc/oidc-provider-http';
import type { Logger } from '../adapters/system/logger';
import { AccountAppGrants, NO_APP_GRANTS } from '../adapters/oidc/account-app-grants';
import type { AccessRulesSource } from '../application/forward-auth/access-rules-source';
import type { AppGrants } from '../application/account/app-grants';
import type { CredentialFingerprints } from '../application/ports/credential-fingerprints';
import type { AuditLog } from '../application/ports/audit-log';
import type { Clock } from '../application/ports/clock';
import type { OidcAccounts } from '../application/oidc/oidc-accounts';
import type { OidcArtifacts } from '../application/oidc/oidc-artifacts';
import type { OidcClients } from '../application/oidc/oidc-clients';
import type { SigningKeys } from '../application/oidc/signing-keys';
import type { SubjectIdentifiers } from '../application/oidc/subject-identifiers';
import type { UserStore } from '../application/ports/user-store';
import type { PasswordHasher } from '../application/ports/password-hasher';
import type { RequestAuthenticator } from '../application/sessions/request-authenticator';
import type { AuthorizeOidcLoginUseCase } from '../application/oidc/authorize-oidc-login';
import type { FindOidcAccountUseCase } from '../application/oidc/find-oidc-account';
import type { LogoutUseCase } from '../application/sessions/logout';
import type { StepUpReferences } from '../application/step-up/step-up-references';
import type { StepUpSessions } from '../application/step-up/step-up-sessions';
import type { TypedContainer } from './binding';
import type { Config } from '../config/load';
import type { OidcHttpHolder, RedisHolder } from './holders';
import { buildOidcState, openSigningKeysAtStart, type OidcState } from './oidc-state';
import { generateSigningKeySet, loadSigningKeys, publicJwks } from './oidc-keys';
import type { Resources } from './resources';
import type { StateStores } from '../adapters/state/state-stores';
import { optionalModules, takeLibraryNotices } from './optional-modules';
import { lazyModule } from '../adapters/system/lazy-module';
import { TOKENS } from './tokens';
import { bindBackchannelLogout } from './oidc-logout';

/**
 * The provider's own code (its HTTP face and pages, the client list, the accounts and the two use
 * cases), loaded only when OIDC_CLIENTS_… configures a client, like oidc-provider itself (ADR 0015):
 * without clients the gateway serves at most the assertion JWKS, which needs none of it.
 */
const providerCode = lazyModule(() => ({
  ...(require('../adapters/oidc/oidc-provider-http') as typeof import('../adapters/oidc/oidc-provider-http')),
  ...(require('../adapters/oidc/oidc-pages') as typeof import('../adapters/oidc/oidc-pages')),
  ...(require('../adapters/oidc/configured-oidc-clients') as typeof import('../adapters/oidc/configured-oidc-clients')),
  ...(require('../adapters/crypto/hashed-client-secrets') as typeof import('../adapters/crypto/hashed-client-secrets')),
  ...(require('../adapters/oidc/artifact-oidc-accounts') as typeof import('../adapters/oidc/artifact-oidc-accounts')),
  ...(require('../application/oidc/authorize-oidc-login') as typeof import('../application/oidc/authorize-oidc-login')),
  ...(require('../application/oidc/find-oidc-account') as typeof import('../application/oidc/find-oidc-account')),
}));

/**
 * The provider is built on its first request: its key set comes from the durable store
 * (asynchronously), and a gateway without OpenID Connect clients never loads the library. A
 * failed build (the store down) answers 503 and is retried by the next request.
 */
function lazyOidcHttp(build: () => Promise<OidcHttp>, logger: Logger): OidcHttp {
  let built: Promise<OidcHttp> | null = null;
  return {
    async middleware(ctx: Koa.Context, next: Koa.Next) {
      built ??= build();
      let http: OidcHttp;
      try {
        http = await built;
      } catch (e) {
        built = null;
        logger.error('oidc provider could not start', { error: e instanceof Error ? e.name : 'unknown' });
        const path = ctx.path;
        if (path !== '/.well-known/openid-configuration' && !path.startsWith('/oidc')) return next();
        ctx.status = 503;
        ctx.set(providerCode().PAGE_SECURITY_HEADERS);
        ctx.type = 'html';
        ctx.body = providerCode().errorPage('temporarily_unavailable', 'The login service is unavailable right now. Try again in a moment.');
        return;
      }
      return http.middleware(ctx, next);
    },
  };
}

/**
 * Binds the OpenID Connect provider's ports and use cases. The one entry point of its wiring:
 * storage comes from {@link buildOidcState} (TOKENS.OidcArtifacts and TOKENS.SigningKeys, which
 * tests override with fakes).
 */
export function bindOidc(c: TypedContainer, config: Config): void {
  bindBackchannelLogout(c, config);
  const bind = c.bind.bind(c) as TypedContainer['bind'];
  // The bundle chosen for durable records, built once for both ports.
  let storage: OidcState | null = null;
  const storageOf = (records: StateStores): OidcState => (storage ??= buildOidcState(records, config.secret));
  bind(TOKENS.OidcArtifacts, (records: StateStores): OidcArtifacts => storageOf(records).artifacts, [TOKENS.RecordStores]);
  bind(
    TOKENS.SigningKeys,
    (records: StateStores, redis: RedisHolder, resources: Resources): SigningKeys => {
      const { signingKeys } = storageOf(records);
      // A key set stored under another SECRET stops the start (see oidc-state.ts), not the first OIDC request.
      if (config.oidc.clients.length > 0 && config.oidc.signingKeyPem === null)
        resources.afterStart(() => openSigningKeysAtStart(signingKeys, generateSigningKeySet, redis));
      return signingKeys;
    },
    [TOKENS.RecordStores, TOKENS.Redis, TOKENS.Resources],
  );
  bind(TOKENS.OidcClients, (): OidcClients => new (providerCode().ConfiguredOidcClients)(config.oidc.clients));
  bind(TOKENS.SubjectIdentifiers, (): SubjectIdentifiers => new Sha256SubjectIdentifiers());
  bind(
    TOKENS.OidcAccounts,
    (artifacts: OidcArtifacts): OidcAccounts => new (providerCode().ArtifactOidcAccounts)(artifacts, config.oidc.refreshTokenTtlSeconds),
    [TOKENS.OidcArtifacts],
  );
  // Without clients no app holds a grant: nothing to end, and the provider's code stays unloaded.
  bind(
    TOKENS.AppGrants,
    (clock: Clock): AppGrants =>
      config.oidc.clients.length === 0
        ? NO_APP_GRANTS
        : new AccountAppGrants(
            c.get(TOKENS.OidcAccounts) as OidcAccounts,
            c.get(TOKENS.SubjectIdentifiers) as SubjectIdentifiers,
            c.get(TOKENS.OidcClients) as OidcClients,
            clock,
            config.oidc.refreshTokenTtlSeconds,
          ),
    [TOKENS.Clock],
  );
  bind(
    TOKENS.AuthorizeOidcLoginUseCase,
    (authenticator: RequestAuthenticator, clients: OidcClients, subjects: SubjectIdentifiers, accounts: OidcAccounts, audit: AuditLog, clock: Clock) =>
      new (providerCode().AuthorizeOidcLoginUseCase)(authenticator, clients, subjects, accounts, audit, config.oidc.refreshTokenTtlSeconds, clock, {
        // The step-up forward auth uses (issue 33), for an authorization whose acr_values or max_age the session does not meet.
        references: c.get(TOKENS.StepUpReferences) as StepUpReferences,
        sessions: c.get(TOKENS.StepUpSessions) as StepUpSessions,
        users: c.get(TOKENS.UserStore) as UserStore,
      }),
    [TOKENS.RequestAuthenticator, TOKENS.OidcClients, TOKENS.SubjectIdentifiers, TOKENS.OidcAccounts, TOKENS.AuditLog, TOKENS.Clock],
  );
  bind(
    TOKENS.FindOidcAccountUseCase,
    (accounts: OidcAccounts, users: UserStore, clients: OidcClients, fingerprints: CredentialFingerprints) =>
      new (providerCode().FindOidcAccountUseCase)(accounts, users, clients, fingerprints),
    [TOKENS.OidcAccounts, TOKENS.UserStore, TOKENS.OidcClients, TOKENS.CredentialFingerprints],
  );
  bind(
    TOKENS.OidcHttp,
    (artifacts: OidcArtifacts, signingKeys: SigningKeys, clock: Clock, http: HttpSettings, rules: AccessRulesSource): OidcHttpHolder => {
      if (config.oidc.clients.length === 0)
        return { oidc: assertionJwks(rules, async () => publicJwks(await loadSigningKeys(config.oidc.signingKeyPem, signingKeys)), http.logger) };
      // Resolved here, with a client only: without one their code never loads (providerCode).
      const authorizeOidcLogin: AuthorizeOidcLoginUseCase = c.get(TOKENS.AuthorizeOidcLoginUseCase);
      const findOidcAccount: FindOidcAccountUseCase = c.get(TOKENS.FindOidcAccountUseCase);
      const logout: LogoutUseCase = c.get(TOKENS.LogoutUseCase);
      const library = (): ReturnType<typeof optionalModules.oidcProvider> => {
        const loaded = optionalModules.oidcProvider();
        for (const notice of takeLibraryNotices()) http.logger.warn('the OpenID Connect library says', { notice });
        return loaded;
      };
      const build = async (): Promise<OidcHttp> =>
        providerCode().createOidcHttp(
          library(),
          {
            authorizeOidcLogin,
            findOidcAccount,
            logout,
            rememberOidcLogin: c.get(TOKENS.RememberOidcLoginUseCase),
            takeFrontchannelLogouts: c.get(TOKENS.TakeFrontchannelLogoutsUseCase),
          },
          {
            issuer: config.appUrl,
            clients: config.oidc.clients,
            signingKeys: await loadSigningKeys(config.oidc.signingKeyPem, signingKeys),
            cookieKeys: [deriveKey(config.secret, 'oidc-provider-cookies').toString('base64url')],
            ttl: {
              accessTokenSeconds: config.oidc.accessTokenTtlSeconds,
              refreshTokenSeconds: config.oidc.refreshTokenTtlSeconds,
              sessionSeconds: config.sessionExpirySeconds,
            },
            artifacts,
            clock,
            cookies: http.cookies,
            clientAddress: http.clientAddress,
            logger: http.logger,
            ...hashedSecretSettings(c.get(TOKENS.PasswordHasher), config.secret),
          },
        );
      return { oidc: lazyOidcHttp(build, http.logger) };
    },
    [TOKENS.OidcArtifacts, TOKENS.SigningKeys, TOKENS.Clock, TOKENS.HttpSettings, TOKENS.AccessRulesSource],
  );
}

/**
 * What checks the secrets of clients configured with CLIENT_SECRET_HASH (bcrypt and Argon2 in the
 * password hasher's line, PBKDF2 in one of its own) and the placeholder the library holds for them.
 */
function hashedSecretSettings(hasher: PasswordHasher, secret: string): Pick<OidcProviderSettings, 'hashedSecrets' | 'placeholderSecret'> {
  return {
    hashedSecrets: new (providerCode().HashedClientSecrets)(hasher),
    placeholderSecret: (clientId) => hashedClientPlaceholder(secret, clientId),
  };
}

/**
 * The secret oidc-provider holds for a client configured with a hash (it requires one), derived
 * from SECRET per client: nobody without SECRET can know it, and the provider never accepts it.
 */
export function hashedClientPlaceholder(secret: string, clientId: string): string {
  return deriveKey(secret, `oidc-hashed-client-placeholder:${clientId}`).toString('base64url');
}
