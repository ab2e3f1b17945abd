import type { OidcArtifacts } from '../application/oidc/oidc-artifacts';
import type { OidcSessionLogins } from '../application/oidc/oidc-session-logins';
import type { LogoutDeliveries } from '../application/oidc/logout-deliveries';
import type { EndOidcSessionLoginsUseCase } from '../application/oidc/end-oidc-session-logins';
import type { RememberOidcLoginUseCase } from '../application/oidc/remember-oidc-login';
import type { DeliverLogoutsUseCase } from '../application/oidc/deliver-logouts';
import type { LogoutDeliveryWorker } from '../adapters/oidc/logout-delivery-worker';
import type { FrontchannelLogouts, TakeFrontchannelLogoutsUseCase } from '../application/oidc/frontchannel-logouts';
import type { UpstreamSessions } from '../application/oauth/upstream-sessions';
import type { EndRemovedAccountsUseCase } from '../application/sessions/end-removed-accounts';
import type { UpstreamBackchannelLogoutUseCase } from '../application/oauth/upstream-backchannel-logout';
import type { SigningKeys } from '../application/oidc/signing-keys';
import type { OidcClients } from '../application/oidc/oidc-clients';
import type { SubjectIdentifiers } from '../application/oidc/subject-identifiers';
import type { AppGrants } from '../application/account/app-grants';
import type { OidcAccounts } from '../application/oidc/oidc-accounts';
import type { AuthorizeOidcLoginUseCase } from '../application/oidc/authorize-oidc-login';
import type { FindOidcAccountUseCase } from '../application/oidc/find-oidc-account';
import type { HttpSettings } from '../adapters/http/http-settings';
import type { GatewayLifecycle } from '../adapters/system/lifecycle';
import type { Logger } from '../adapters/system/logger';
import type { AccessPolicy } from '../application/forward-auth/access-policy';
import type { AccessRulesSource } from '../application/forward-auth/access-rules-source';
import type { AuditLog } from '../application/ports/audit-log';
import type { Clock } from '../application/ports/clock';
import type { IdentityAssertions } from '../application/forward-auth/identity-assertions';
import type { CredentialFingerprints } from '../application/ports/credential-fingerprints';
import type { IdGenerator } from '../application/ports/id-generator';
import type { LoginAttempts } from '../application/password/login-attempts';
import type { OAuthFlowSealer } from '../application/oauth/oauth-flow-sealer';
import type { OAuthProviders } from '../application/ports/oauth-providers';
import type { PasswordHasher } from '../application/ports/password-hasher';
import type { Pkce } from '../application/oauth/pkce';
import type { ReadinessCheck } from '../application/readiness/readiness-check';
import type { RevokedSessions } from '../application/ports/revoked-sessions';
import type { SessionSealer } from '../application/ports/session-sealer';
import type { TotpVerifier } from '../application/ports/totp-verifier';
import type { UsedOAuthFlows } from '../application/ports/used-oauth-flows';
import type { PasskeyCredentials } from '../application/passkeys/passkey-credentials';
import type { PasskeyEnrolmentLinks } from '../application/passkeys/passkey-enrolment-links';
import type { PasskeySecondFactorChoices } from '../application/passkeys/passkey-second-factor-choices';
import type { PasskeySecondFactor } from '../application/passkeys/passkey-second-factor';
import type { HandoffCodes } from '../application/handoff/handoff-codes';
import type { HandoffSettings, IssueHandoffCodeUseCase } from '../application/handoff/issue-handoff-code';
import type { RedeemHandoffCodeUseCase } from '../application/handoff/redeem-handoff-code';
import type { UsedTotpSteps } from '../application/ports/used-totp-steps';
import type { UserStore } from '../application/ports/user-store';
import type { EnrolledTotpSecrets } from '../application/totp/enrolled-totp-secrets';
import type { TotpSecretSealer } from '../application/totp/totp-secret-sealer';
import type { VerifiedCredentials } from '../application/sessions/verified-credentials';
import type { CredentialCheck } from '../application/password/credential-check';
import type { SessionIssuer } from '../application/sessions/session-issuer';
import type { LoginGuard } from '../application/password/login-guard';
import type { RequestAuthenticator } from '../application/sessions/request-authenticator';
import type { GatewaySettings, OAuthSettings } from '../application/settings';
import type { LoginTargets } from '../application/forward-auth/login-targets';
import type { AuthorizeProxyRequestUseCase } from '../application/forward-auth/authorize-proxy-request';
import type { CheckReadinessUseCase } from '../application/readiness/check-readiness';
import type { CompleteOAuthUseCase } from '../application/oauth/complete-oauth';
import type { GetCurrentUserUseCase } from '../application/sessions/get-current-user';
import type { LoginUseCase } from '../application/password/login';
import type { LogoutUseCase } from '../application/sessions/logout';
import type { StartOAuthUseCase } from '../application/oauth/start-oauth';
import type { VerifyTotpUseCase } from '../application/totp/verify-totp';
import type { Config } from '../config/load';
import type { DatabaseHolder, JwtHolder, MetricsHolder, OidcHttpHolder, PostgresHolder, RedisHolder } from './holders';
import type { AccessTokens } from '../application/tokens/access-tokens';
import type { TokenSecrets } from '../application/tokens/token-secrets';
import type { TokenAuthenticator } from '../application/tokens/token-authenticator';
import type { StateStores } from '../adapters/state/state-stores';
import type { TotpSecretIssuer } from '../application/totp/totp-secret-issuer';
import type { SecondFactorSessions } from '../application/totp/second-factor-sessions';
import type { GetTotpEnrolmentUseCase } from '../application/totp/get-totp-enrolment';
import type { StartTotpEnrolmentUseCase } from '../application/totp/start-totp-enrolment';
import type { ConfirmTotpEnrolmentUseCase, TotpEnrolmentProofs } from '../application/totp/confirm-totp-enrolment';
import type { RemoveTotpEnrolmentUseCase } from '../application/totp/remove-totp-enrolment';
import type { ChangePasswordUseCase, GetPasswordChangeUseCase, PasswordWriters } from '../application/account/change-password';
import type { PasskeyCeremonies } from '../application/passkeys/passkey-ceremonies';
import type { PasskeyChallengeSealer } from '../application/passkeys/passkey-challenge-sealer';
import type { StepUpPrompt } from '../application/forward-auth/authorize-proxy-request';
import type { StepUpReferences } from '../application/step-up/step-up-references';
import type { StepUpSessions } from '../application/step-up/step-up-sessions';
import type { DescribeStepUpUseCase } from '../application/step-up/describe-step-up';
import type { CompleteStepUpUseCase } from '../application/step-up/complete-step-up';
import type { PasskeyOwners } from '../application/passkeys/passkey-owner';
import type { PasskeyAssertionCheck } from '../application/passkeys/passkey-assertion-check';
import type { Reauthentication } from '../application/passkeys/reauthentication';
import type { StartPasskeyRegistrationUseCase } from '../application/passkeys/start-passkey-registration';
import type { FinishPasskeyRegistrationUseCase } from '../application/passkeys/finish-passkey-registration';
import type { StartPasskeyLoginUseCase } from '../application/passkeys/start-passkey-login';
import type { StartPasskeyReauthenticationUseCase } from '../application/passkeys/start-passkey-reauthentication';
import type { FinishPasskeyLoginUseCase } from '../application/passkeys/finish-passkey-login';
import type { ListPasskeysUseCase } from '../application/passkeys/list-passkeys';
import type { ChoosePasskeySecondFactorUseCase } from '../application/passkeys/choose-passkey-second-factor';
import type { ChangePasskeyUseCase } from '../application/passkeys/change-passkey';
import type { StartPasskeyEnrolmentUseCase } from '../application/passkeys/start-passkey-enrolment';
import type { FinishPasskeyEnrolmentUseCase, PasskeyEnrolmentCeremony } from '../application/passkeys/finish-passkey-enrolment';
import type { PendingSecondFactors } from '../application/sessions/pending-second-factors';
import type { Resources } from './resources';
import type { SessionIndex } from '../application/ports/session-index';
import type { LastSeenRecorder } from '../application/sessions/last-seen-recorder';
import type { ListAccountSessionsUseCase } from '../application/account/list-account-sessions';
import type { SignOutOfAppUseCase } from '../application/account/sign-out-of-app';
import type { RevokeAccountSessionsUseCase } from '../application/account/revoke-account-sessions';
import type { TokenIssuer } from '../application/tokens/token-issuer';
import type { TokenRevocation } from '../application/tokens/token-revocation';
import type { TokenAdministration } from '../application/tokens/token-administration';
import type { CreateAccessTokenUseCase } from '../application/tokens/create-access-token';
import type { ListAccessTokensUseCase } from '../application/tokens/list-access-tokens';
import type { RevokeAccessTokenUseCase } from '../application/tokens/revoke-access-token';

declare const resolvesTo: unique symbol;

/**
 * A container key that carries the type it resolves to. The brand is invariant (`T` appears as a
 * parameter and as a result), so a `Token<Clock>` is neither a `Token<unknown>` nor a
 * `Token<IdGenerator>`: handing the wrong token to a binding or to `get` is a compile error.
 * At run time it is a plain registered symbol.
 */
export type Token<T> = symbol & { readonly [resolvesTo]: (value: T) => T };

/** The type a token resolves to. */
export type TokenType<K> = K extends Token<infer T> ? T : never;

/** A token for `T`, registered under `portcullis.<name>` (the same symbol in every module copy). */
export function token<T>(name: string): Token<T> {
  return Symbol.for(`portcullis.${name}`) as Token<T>;
}

/** One key per port, service and use case the container wires, each typed by what it resolves to. */
import type { AccountDirectory } from '../application/admin/account-directory';
import type { AdminGate } from '../application/admin/admin-gate';
import type { ExplainAccessUseCase } from '../application/admin/explain-access';
import type { ListAdminAppsUseCase } from '../application/admin/list-admin-apps';
import type { ListOidcClientsUseCase } from '../application/admin/list-oidc-clients';
import type { ListAdminTokensUseCase, RevokeAdminTokenUseCase } from '../application/admin/admin-tokens';
import type { ExportAuditTrailUseCase } from '../application/admin/export-audit-trail';
import type { QueryAuditTrailUseCase } from '../application/admin/query-audit-trail';
import type { AuditTrail } from '../application/ports/audit-trail';
import type { TrailAuditLog } from '../adapters/system/trail-audit-log';
import type { ListAdminSessionsUseCase } from '../application/admin/list-admin-sessions';
import type { ListAdminUsersUseCase } from '../application/admin/list-admin-users';
import type { EditAdminUserUseCase } from '../application/admin/edit-admin-user';
import type { RevokeAdminSessionsUseCase } from '../application/admin/revoke-admin-sessions';
import type { UsersFileEditor } from '../adapters/users/users-file-editor';
import type { IssueInvitationUseCase } from '../application/admin/issue-invitation';
import type { RemovePersonTotpUseCase } from '../application/admin/remove-person-totp';
import type { RemovePersonPasskeysUseCase } from '../application/admin/remove-person-passkeys';
import type { PasswordLinks } from '../application/invitations/password-links';
import type { PasswordWrite, SetPasswordWithLinkUseCase } from '../application/invitations/set-password-with-link';
import type { PersonSessions } from '../application/admin/remove-person-factors';

export const TOKENS = {
  AccountDirectory: token<AccountDirectory>('AccountDirectory'),
  AdminGate: token<AdminGate>('AdminGate'),
  ListAdminUsersUseCase: token<ListAdminUsersUseCase>('ListAdminUsersUseCase'),
  ListAdminSessionsUseCase: token<ListAdminSessionsUseCase>('ListAdminSessionsUseCase'),
  RevokeAdminSessionsUseCase: token<RevokeAdminSessionsUseCase>('RevokeAdminSessionsUseCase'),
  ExplainAccessUseCase: token<ExplainAccessUseCase>('ExplainAccessUseCase'),
  EditAdminUserUseCase: token<EditAdminUserUseCase>('EditAdminUserUseCase'),
  /** The users-file writer (an AccountEditor) with USERS_FILE set, else null (issue 36). */
  UsersFileEditor: token<{ readonly editor: UsersFileEditor | null }>('UsersFileEditor'),
  ListAdminAppsUseCase: token<ListAdminAppsUseCase>('ListAdminAppsUseCase'),
  ListOidcClientsUseCase: token<ListOidcClientsUseCase>('ListOidcClientsUseCase'),
  ListAdminTokensUseCase: token<ListAdminTokensUseCase>('ListAdminTokensUseCase'),
  RevokeAdminTokenUseCase: token<RevokeAdminTokenUseCase>('RevokeAdminTokenUseCase'),
  // Issue 36: the durable audit trail (bound in audit-trail.ts).
  AuditTrail: token<AuditTrail>('AuditTrail'),
  AuditTrailRecorder: token<{ readonly recorder: TrailAuditLog | null }>('AuditTrailRecorder'),
  QueryAuditTrailUseCase: token<QueryAuditTrailUseCase>('QueryAuditTrailUseCase'),
  ExportAuditTrailUseCase: token<ExportAuditTrailUseCase>('ExportAuditTrailUseCase'),
  PasswordLinks: token<PasswordLinks>('PasswordLinks'),
  IssueInvitationUseCase: token<IssueInvitationUseCase>('IssueInvitationUseCase'),
  RemovePersonTotpUseCase: token<RemovePersonTotpUseCase>('RemovePersonTotpUseCase'),
  RemovePersonPasskeysUseCase: token<RemovePersonPasskeysUseCase>('RemovePersonPasskeysUseCase'),
  SetPasswordWithLinkUseCase: token<SetPasswordWithLinkUseCase>('SetPasswordWithLinkUseCase'),
  PersonSessions: token<PersonSessions>('PersonSessions'),
  PasswordWrite: token<PasswordWrite>('PasswordWrite'),
  PasskeyEnrolmentLinksIfOn: token<PasskeyEnrolmentLinks | null>('PasskeyEnrolmentLinksIfOn'),
  Config: token<Config>('Config'),
  Settings: token<GatewaySettings>('GatewaySettings'),
  Logger: token<Logger>('Logger'),
  AuditLog: token<AuditLog>('AuditLog'),
  Clock: token<Clock>('Clock'),
  IdGenerator: token<IdGenerator>('IdGenerator'),
  PasswordHasher: token<PasswordHasher>('PasswordHasher'),
  TotpVerifier: token<TotpVerifier>('TotpVerifier'),
  UsedTotpSteps: token<UsedTotpSteps>('UsedTotpSteps'),
  LoginAttempts: token<LoginAttempts>('LoginAttempts'),
  SessionSealer: token<SessionSealer>('SessionSealer'),
  RevokedSessions: token<RevokedSessions>('RevokedSessions'),
  /** The revocations as the state store keeps them; RevokedSessions is this, telling the apps of an ended session (issue 35) when OIDC clients are configured. */
  RevokedSessionsStore: token<RevokedSessions>('RevokedSessionsStore'),
  VerifiedCredentials: token<VerifiedCredentials>('VerifiedCredentials'),
  CredentialFingerprints: token<CredentialFingerprints>('CredentialFingerprints'),
  UserStore: token<UserStore>('UserStore'),
  Resources: token<Resources>('Resources'),
  AccessPolicy: token<AccessPolicy>('AccessPolicy'),
  AccessRulesSource: token<AccessRulesSource>('AccessRulesSource'),
  OAuthProviders: token<OAuthProviders>('OAuthProviders'),
  OAuthSettings: token<OAuthSettings>('OAuthSettings'),
  OAuthFlowSealer: token<OAuthFlowSealer>('OAuthFlowSealer'),
  UsedOAuthFlows: token<UsedOAuthFlows>('UsedOAuthFlows'),
  PasskeyCredentials: token<PasskeyCredentials>('PasskeyCredentials'),
  /** Issue 16: first-passkey links of passkey-only accounts, behind their keyed hash. */
  PasskeyEnrolmentLinks: token<PasskeyEnrolmentLinks>('PasskeyEnrolmentLinks'),
  PasskeySecondFactorChoices: token<PasskeySecondFactorChoices>('PasskeySecondFactorChoices'),
  PasskeySecondFactor: token<PasskeySecondFactor>('PasskeySecondFactor'),
  /** The passkey second step with PASSKEYS on, else null (issue 16). */
  PasskeySecondFactorIfOn: token<PasskeySecondFactor | null>('PasskeySecondFactorIfOn'),
  /** The passkey store with PASSKEYS on, else null. */
  PasskeyCredentialsIfOn: token<PasskeyCredentials | null>('PasskeyCredentialsIfOn'),
  // Step-up (issue 33), bound in step-up.ts.
  StepUpReferences: token<StepUpReferences>('StepUpReferences'),
  StepUpPrompt: token<StepUpPrompt>('StepUpPrompt'),
  StepUpSessions: token<StepUpSessions>('StepUpSessions'),
  StepUpReauthentication: token<Reauthentication | null>('StepUpReauthentication'),
  DescribeStepUpUseCase: token<DescribeStepUpUseCase>('DescribeStepUpUseCase'),
  CompleteStepUpUseCase: token<CompleteStepUpUseCase>('CompleteStepUpUseCase'),
  Pkce: token<Pkce>('Pkce'),
  LoginGuard: token<LoginGuard>('LoginGuard'),
  CredentialCheck: token<CredentialCheck>('CredentialCheck'),
  SessionIssuer: token<SessionIssuer>('SessionIssuer'),
  RequestAuthenticator: token<RequestAuthenticator>('RequestAuthenticator'),
  LoginUseCase: token<LoginUseCase>('LoginUseCase'),
  VerifyTotpUseCase: token<VerifyTotpUseCase>('VerifyTotpUseCase'),
  LogoutUseCase: token<LogoutUseCase>('LogoutUseCase'),
  GetCurrentUserUseCase: token<GetCurrentUserUseCase>('GetCurrentUserUseCase'),
  AuthorizeProxyRequestUseCase: token<AuthorizeProxyRequestUseCase>('AuthorizeProxyRequestUseCase'),
  IdentityAssertions: token<IdentityAssertions>('IdentityAssertions'),
  LoginTargets: token<LoginTargets>('LoginTargets'),
  StartOAuthUseCase: token<StartOAuthUseCase>('StartOAuthUseCase'),
  CompleteOAuthUseCase: token<CompleteOAuthUseCase>('CompleteOAuthUseCase'),
  HttpSettings: token<HttpSettings>('HttpSettings'),
  Redis: token<RedisHolder>('Redis'),
  Database: token<DatabaseHolder>('Database'),
  Postgres: token<PostgresHolder>('Postgres'),
  Metrics: token<MetricsHolder>('Metrics'),
  Lifecycle: token<GatewayLifecycle>('Lifecycle'),
  ReadinessChecks: token<readonly ReadinessCheck[]>('ReadinessChecks'),
  CheckReadinessUseCase: token<CheckReadinessUseCase>('CheckReadinessUseCase'),
  OidcArtifacts: token<OidcArtifacts>('OidcArtifacts'),
  SigningKeys: token<SigningKeys>('SigningKeys'),
  OidcClients: token<OidcClients>('OidcClients'),
  SubjectIdentifiers: token<SubjectIdentifiers>('SubjectIdentifiers'),
  OidcAccounts: token<OidcAccounts>('OidcAccounts'),
  AppGrants: token<AppGrants>('AppGrants'),
  AuthorizeOidcLoginUseCase: token<AuthorizeOidcLoginUseCase>('AuthorizeOidcLoginUseCase'),
  FindOidcAccountUseCase: token<FindOidcAccountUseCase>('FindOidcAccountUseCase'),
  OidcHttp: token<OidcHttpHolder>('OidcHttp'),
  // Issue 35: back-channel logout (bound in oidc.ts).
  OidcSessionLogins: token<OidcSessionLogins>('OidcSessionLogins'),
  LogoutDeliveries: token<LogoutDeliveries>('LogoutDeliveries'),
  EndOidcSessionLoginsUseCase: token<EndOidcSessionLoginsUseCase>('EndOidcSessionLoginsUseCase'),
  RememberOidcLoginUseCase: token<RememberOidcLoginUseCase>('RememberOidcLoginUseCase'),
  DeliverLogoutsUseCase: token<DeliverLogoutsUseCase>('DeliverLogoutsUseCase'),
  LogoutDeliveryWorker: token<LogoutDeliveryWorker>('LogoutDeliveryWorker'),
  FrontchannelLogouts: token<FrontchannelLogouts>('FrontchannelLogouts'),
  TakeFrontchannelLogoutsUseCase: token<TakeFrontchannelLogoutsUseCase>('TakeFrontchannelLogoutsUseCase'),
  EndRemovedAccountsUseCase: token<EndRemovedAccountsUseCase>('EndRemovedAccountsUseCase'),
  /** Issue 35: both null without an upstream OpenID Connect provider (a generic one with an issuer). */
  UpstreamLogout: token<{ readonly sessions: UpstreamSessions | null; readonly backchannelLogout: UpstreamBackchannelLogoutUseCase | null }>('UpstreamLogout'),
  // Issue 17: the hand-off between gateway domains (bound in handoff.ts).
  HandoffCodes: token<HandoffCodes>('HandoffCodes'),
  HandoffSettings: token<HandoffSettings>('HandoffSettings'),
  IssueHandoffCodeUseCase: token<IssueHandoffCodeUseCase>('IssueHandoffCodeUseCase'),
  RedeemHandoffCodeUseCase: token<RedeemHandoffCodeUseCase>('RedeemHandoffCodeUseCase'),
  SessionIndex: token<SessionIndex>('SessionIndex'),
  LastSeenRecorder: token<LastSeenRecorder>('LastSeenRecorder'),
  ListAccountSessionsUseCase: token<ListAccountSessionsUseCase>('ListAccountSessionsUseCase'),
  RevokeAccountSessionsUseCase: token<RevokeAccountSessionsUseCase>('RevokeAccountSessionsUseCase'),
  SignOutOfAppUseCase: token<SignOutOfAppUseCase>('SignOutOfAppUseCase'),
  // Issue 16: TOTP codes people set up themselves (bound in totp.ts).
  StoreUsers: token<UserStore>('StoreUsers'),
  EnrolledTotpSecrets: token<EnrolledTotpSecrets>('EnrolledTotpSecrets'),
  TotpSecretSealer: token<TotpSecretSealer>('TotpSecretSealer'),
  TotpSecretIssuer: token<TotpSecretIssuer>('TotpSecretIssuer'),
  SecondFactorSessions: token<SecondFactorSessions>('SecondFactorSessions'),
  GetTotpEnrolmentUseCase: token<GetTotpEnrolmentUseCase>('GetTotpEnrolmentUseCase'),
  StartTotpEnrolmentUseCase: token<StartTotpEnrolmentUseCase>('StartTotpEnrolmentUseCase'),
  TotpEnrolmentProofs: token<TotpEnrolmentProofs>('TotpEnrolmentProofs'),
  ConfirmTotpEnrolmentUseCase: token<ConfirmTotpEnrolmentUseCase>('ConfirmTotpEnrolmentUseCase'),
  RemoveTotpEnrolmentUseCase: token<RemoveTotpEnrolmentUseCase>('RemoveTotpEnrolmentUseCase'),
  PendingSecondFactors: token<PendingSecondFactors>('PendingSecondFactors'),
  // Issue 36: changing one's own password on the account page (bound in password-change.ts).
  PasswordWriters: token<PasswordWriters>('PasswordWriters'),
  GetPasswordChangeUseCase: token<GetPasswordChangeUseCase>('GetPasswordChangeUseCase'),
  ChangePasswordUseCase: token<ChangePasswordUseCase>('ChangePasswordUseCase'),
  // The passkey ceremonies and use cases (bound in passkeys.ts; resolved only with PASSKEYS on).
  PasskeyCeremonies: token<PasskeyCeremonies>('PasskeyCeremonies'),
  PasskeyChallengeSealer: token<PasskeyChallengeSealer>('PasskeyChallengeSealer'),
  PasskeyOwners: token<PasskeyOwners>('PasskeyOwners'),
  PasskeyAssertionCheck: token<PasskeyAssertionCheck>('PasskeyAssertionCheck'),
  Reauthentication: token<Reauthentication>('Reauthentication'),
  StartPasskeyRegistrationUseCase: token<StartPasskeyRegistrationUseCase>('StartPasskeyRegistrationUseCase'),
  FinishPasskeyRegistrationUseCase: token<FinishPasskeyRegistrationUseCase>('FinishPasskeyRegistrationUseCase'),
  StartPasskeyLoginUseCase: token<StartPasskeyLoginUseCase>('StartPasskeyLoginUseCase'),
  StartPasskeyReauthenticationUseCase: token<StartPasskeyReauthenticationUseCase>('StartPasskeyReauthenticationUseCase'),
  FinishPasskeyLoginUseCase: token<FinishPasskeyLoginUseCase>('FinishPasskeyLoginUseCase'),
  ListPasskeysUseCase: token<ListPasskeysUseCase>('ListPasskeysUseCase'),
  ChoosePasskeySecondFactorUseCase: token<ChoosePasskeySecondFactorUseCase>('ChoosePasskeySecondFactorUseCase'),
  ChangePasskeyUseCase: token<ChangePasskeyUseCase>('ChangePasskeyUseCase'),
  StartPasskeyEnrolmentUseCase: token<StartPasskeyEnrolmentUseCase>('StartPasskeyEnrolmentUseCase'),
  PasskeyEnrolmentCeremony: token<PasskeyEnrolmentCeremony>('PasskeyEnrolmentCeremony'),
  FinishPasskeyEnrolmentUseCase: token<FinishPasskeyEnrolmentUseCase>('FinishPasskeyEnrolmentUseCase'),
  // Issue 32: access tokens (the store, secrets and token check bound in sessions.ts; the rest in access-tokens.ts).
  AccessTokens: token<AccessTokens>('AccessTokens'),
  TokenSecrets: token<TokenSecrets>('TokenSecrets'),
  TokenAuthenticator: token<TokenAuthenticator>('TokenAuthenticator'),
  TokenIssuer: token<TokenIssuer>('TokenIssuer'),
  TokenRevocation: token<TokenRevocation>('TokenRevocation'),
  TokenAdministration: token<TokenAdministration>('TokenAdministration'),
  CreateAccessTokenUseCase: token<CreateAccessTokenUseCase>('CreateAccessTokenUseCase'),
  ListAccessTokensUseCase: token<ListAccessTokensUseCase>('ListAccessTokensUseCase'),
  RevokeAccessTokenUseCase: token<RevokeAccessTokenUseCase>('RevokeAccessTokenUseCase'),
  /** Workload JWTs (JWT_ISSUERS_<ID>_…): none without a configured issuer. */
  Jwts: token<JwtHolder>('Jwts'),
  // The stores of the backend chosen for durable records and for short-lived state (state.ts).
  RecordStores: token<StateStores>('RecordStores'),
  ShortLivedStores: token<StateStores>('ShortLivedStores'),
} as const;

/** Any of the container's tokens. */
export type AnyToken = (typeof TOKENS)[keyof typeof TOKENS];
