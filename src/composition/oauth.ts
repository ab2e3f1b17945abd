import { AesGcmOAuthFlowSealer } from '../adapters/crypto/aes-gcm-oauth-flow-sealer';
import { NodeCryptoPkce } from '../adapters/crypto/node-crypto-pkce';
import { ConfiguredOAuthProviders } from '../adapters/providers/configured-oauth-providers';
import { lazyModule } from '../adapters/system/lazy-module';
import type { OAuthFlowSealer } from '../application/oauth/oauth-flow-sealer';
import type { Pkce } from '../application/oauth/pkce';
import { CompleteOAuthUseCase } from '../application/oauth/complete-oauth';
import { StartOAuthUseCase } from '../application/oauth/start-oauth';
import type { OAuthProvider } from '../application/ports/oauth-provider';
import type { OAuthProviders } from '../application/ports/oauth-providers';
import type { OAuthProviderPolicy, OAuthSettings } from '../application/settings';
import { MAX_LIVE_OAUTH_FLOWS, OAUTH_FLOW_LIFETIME_MS } from '../domain/oauth-flow';
import type { TypedContainer } from './binding';
import type { Config } from '../config/load';
import { optionalModules } from './optional-modules';
import { bindStore } from './state';
import { TOKENS } from './tokens';
import { ArtifactUpstreamSessions } from '../adapters/oidc/artifact-upstream-sessions';
import { JoseUpstreamLogoutTokens, type UpstreamLogoutProvider } from '../adapters/providers/jose-upstream-logout-tokens';
import { UpstreamBackchannelLogoutUseCase } from '../application/oauth/upstream-backchannel-logout';
import type { UpstreamSessions } from '../application/oauth/upstream-sessions';
import type { OidcArtifacts } from '../application/oidc/oidc-artifacts';
import type { AuditLog } from '../application/ports/audit-log';
import type { Clock } from '../application/ports/clock';
import type { RevokedSessions } from '../application/ports/revoked-sessions';
import type { UsedOAuthFlows } from '../application/ports/used-oauth-flows';
import type { GatewaySettings } from '../application/settings';

/**
 * The code of the OAuth provider adapters loads with the feature, like simple-oauth2 itself
 * (ADR 0015): a gateway without an OAuth provider never carries it.
 */
const providerAdapters = lazyModule(() => ({
  ...(require('../adapters/providers/github-oauth-provider') as typeof import('../adapters/providers/github-oauth-provider')),
  ...(require('../adapters/providers/google-oauth-provider') as typeof import('../adapters/providers/google-oauth-provider')),
  ...(require('../adapters/providers/generic-oauth-provider') as typeof import('../adapters/providers/generic-oauth-provider')),
}));

export type OAuthConfig = Pick<Config, 'oauth' | 'appUrl' | 'secret'>;

/** The provider adapters the configuration turns on. */
function oauthProvidersOf(config: OAuthConfig): OAuthProviders {
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
function oauthPoliciesOf(config: OAuthConfig): Record<string, OAuthProviderPolicy> {
  const { github, google, generic, providers } = config.oauth;
  const policies: Record<string, OAuthProviderPolicy> = {};
  if (github && github.orgs.length > 0) policies.github = { requiredGroups: github.orgs };
  if (google && (google.hostedDomains ?? []).length > 0) policies.google = { hostedDomains: google.hostedDomains };
  for (const p of [...(generic ? [generic] : []), ...providers]) if (p.whitelist !== undefined) policies[p.id] = { whitelist: p.whitelist };
  return policies;
}

/** "Sign in with …": the providers, their admission rules, the sealed flow state, PKCE and the two OAuth use cases. */
export function bindOAuth(c: TypedContainer, config: OAuthConfig): void {
  c.bind(TOKENS.OAuthProviders, (): OAuthProviders => oauthProvidersOf(config));
  c.bind(TOKENS.OAuthSettings, (): OAuthSettings => ({
    appUrl: config.appUrl,
    whitelist: config.oauth.whitelist,
    policies: oauthPoliciesOf(config),
    flowLifetimeMs: OAUTH_FLOW_LIFETIME_MS,
    maxLiveFlows: MAX_LIVE_OAUTH_FLOWS,
  }));
  c.bind(TOKENS.OAuthFlowSealer, (): OAuthFlowSealer => new AesGcmOAuthFlowSealer(config.secret));
  bindStore(c, TOKENS.UsedOAuthFlows, 'short-lived', (s) => s.usedOAuthFlows());
  c.bind(TOKENS.Pkce, (): Pkce => new NodeCryptoPkce());
  c.bindClass(TOKENS.StartOAuthUseCase, StartOAuthUseCase, [
    TOKENS.OAuthProviders,
    TOKENS.OAuthFlowSealer,
    TOKENS.Pkce,
    TOKENS.IdGenerator,
    TOKENS.Clock,
    TOKENS.Settings,
    TOKENS.OAuthSettings,
  ]);
  c.bind(
    TOKENS.CompleteOAuthUseCase,
    (providers: OAuthProviders, sealer: OAuthFlowSealer, used: UsedOAuthFlows, clock: Clock, settings: GatewaySettings, oauth: OAuthSettings) =>
      new CompleteOAuthUseCase(providers, sealer, used, clock, settings, oauth, c.get(TOKENS.AuditLog), {
        issuer: c.get(TOKENS.SessionIssuer),
        upstream: c.get(TOKENS.UpstreamLogout).sessions,
      }),
    [TOKENS.OAuthProviders, TOKENS.OAuthFlowSealer, TOKENS.UsedOAuthFlows, TOKENS.Clock, TOKENS.Settings, TOKENS.OAuthSettings],
  );
  bindUpstreamLogout(c, config);
}

/** The upstream OpenID Connect providers (generic ones with an issuer): those whose back-channel logout the gateway takes. */
const upstreamProvidersOf = (config: OAuthConfig): UpstreamLogoutProvider[] =>
  [...(config.oauth.generic ? [config.oauth.generic] : []), ...config.oauth.providers].flatMap((p) =>
    p.issuer === undefined ? [] : [{ id: p.id, issuer: p.issuer, clientId: p.clientId }],
  );

/** Issue 35, the client side: the sessions made from each upstream provider session, and its back-channel logout. */
function bindUpstreamLogout(c: TypedContainer, config: OAuthConfig): void {
  const upstream = upstreamProvidersOf(config);
  c.bind(
    TOKENS.UpstreamLogout,
    (artifacts: OidcArtifacts, used: UsedOAuthFlows, audit: AuditLog, clock: Clock) => {
      if (upstream.length === 0) return { sessions: null, backchannelLogout: null };
      const sessions: UpstreamSessions = new ArtifactUpstreamSessions(artifacts, clock);
      const tokens = new JoseUpstreamLogoutTokens(upstream, () => optionalModules.jose(), clock, config.oauth.timeoutSeconds * 1000);
      // The revocations resolved when a token arrives: they tell the apps of each ended session too (provider side).
      const revoked: RevokedSessions = {
        revoke: (id, until) => c.get(TOKENS.RevokedSessions).revoke(id, until),
        isRevoked: (id) => c.get(TOKENS.RevokedSessions).isRevoked(id),
      };
      return { sessions, backchannelLogout: new UpstreamBackchannelLogoutUseCase(tokens, used, sessions, revoked, audit) };
    },
    [TOKENS.OidcArtifacts, TOKENS.UsedOAuthFlows, TOKENS.AuditLog, TOKENS.Clock],
  );
}
