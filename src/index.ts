/**
 * Portcullis as a library: the deliberate public API. What a host that brings its own HTTP server
 * needs (`createGateway`, `loadConfig`, the use cases with their input, output and error types),
 * what one that wires its own adapters needs (the ports, the application services, the policies),
 * the domain values those signatures mention, and the error types a caller may catch. Everything
 * else (domain internals, adapters, the container and its tokens) is private and may change.
 */
export { ok, err, type Result } from './domain/result';
export { hasTotp, type Account } from './domain/account';
export { identityOf, isActive, type Identity, type IdentityProvider, type Session } from './domain/session';
export { protectedDomainOf, isWithinDomain, type ProtectedDomain, type RegistrableDomainOf } from './domain/cookie-domain';
// The session cookie's domain as the gateway derives it: APP_URL's host and the public-suffix list.
export { protectedDomainOfAppUrl } from './composition/cookie-domain';
export { safeRedirectTarget } from './domain/redirect-target';
export type { ForwardedHeaders, OriginalRequest, ProxyKind } from './domain/forwarded-request';
export type { BasicCredentials, PresentedCredentials } from './domain/credentials';
// Header reading a host without Koa needs: Basic decoding for the use cases, cleaning for upstream headers.
export { isBasicAuthorization, parseBasicAuthorization, presentedBasicCredentials } from './adapters/http/basic-authorization';
export { printableHeaderValue } from './adapters/http/header-value';
export { lockPolicy, type LockPolicy } from './domain/login-failures';
export type { AccessDecision, DenyReason } from './domain/access-decision';
export { allowAuthenticatedRules, compileAccessRules, type AccessRules, type AppRules } from './domain/access-rules';
export { parseOAuthWhitelist, type OAuthWhitelist } from './domain/oauth-whitelist';
export type { OAuthFlow, OAuthProviderKind } from './domain/oauth-flow';

export type { AccessPolicy, AccessRequest } from './application/forward-auth/access-policy';
export type { AccessRulesSource } from './application/forward-auth/access-rules-source';
export type { AuditLog, AuditEvent, AuditContext } from './application/ports/audit-log';
export type { Clock } from './application/ports/clock';
export type { PublicSuffixList } from './application/ports/public-suffix-list';
export type { IdGenerator } from './application/ports/id-generator';
export type { LoginAttempts } from './application/password/login-attempts';
export type { OAuthProvider, OAuthIdentity, OAuthProviderFailure } from './application/ports/oauth-provider';
export { OAuthProviderError } from './application/ports/oauth-provider';
export type { OAuthProviders } from './application/ports/oauth-providers';
export type { OAuthFlowSealer } from './application/oauth/oauth-flow-sealer';
export type { UsedOAuthFlows } from './application/ports/used-oauth-flows';
export type { Pkce } from './application/oauth/pkce';
export type { PasswordHasher } from './application/ports/password-hasher';
export type { ReadinessCheck } from './application/readiness/readiness-check';
export { StateStoreUnavailableError } from './application/ports/state-store-unavailable';
export type { RevokedSessions } from './application/ports/revoked-sessions';
export type { SessionSealer } from './application/ports/session-sealer';
export type { TotpVerifier } from './application/ports/totp-verifier';
export type { UsedTotpSteps } from './application/ports/used-totp-steps';
export type { UserStore } from './application/ports/user-store';
export { UserStoreUnavailableError } from './application/ports/user-store';
export type { VerifiedCredentials } from './application/sessions/verified-credentials';
export type { GatewaySettings, OAuthSettings } from './application/settings';

export { LoginGuard } from './application/password/login-guard';
export { CredentialCheck, type PasswordGuess, type TotpGuess, type CredentialProof } from './application/password/credential-check';
export { RequestAuthenticator, type Authentication, type RequestCredentials, type OAuthSessionRules } from './application/sessions/request-authenticator';
export { AllowAuthenticatedPolicy } from './application/forward-auth/allow-authenticated-policy';
export { RulesAccessPolicy } from './application/forward-auth/rules-access-policy';
export { InMemoryAccessRulesSource } from './adapters/rules/in-memory-access-rules-source';
export { YamlFileAccessRulesSource, InvalidAccessRulesError, type YamlFileAccessRulesOptions } from './adapters/rules/yaml-file-access-rules-source';
export { loadAccessRulesFile, parseAccessRulesYaml } from './config/rules';
export * from './application/password/login';
export * from './application/totp/verify-totp';
export * from './application/sessions/logout';
export * from './application/sessions/get-current-user';
export * from './application/forward-auth/authorize-proxy-request';
export * from './application/readiness/check-readiness';
export * from './application/oauth/start-oauth';
export * from './application/oauth/complete-oauth';

export { loadConfig } from './composition/config';
export type { Config, ConfigResult } from './config/load';
export { createGateway, type Gateway } from './composition/gateway';
// A gateway whose config has a dataDir keeps its state there; opening it may throw this (one line for the operator).
export { DatabaseStartError } from './adapters/state/sqlite/sqlite-database';
