import { AesGcmStepUpReferences } from '../../src/adapters/crypto/aes-gcm-step-up-references';
import { PasskeyOwners } from '../../src/application/passkeys/passkey-owner';
import { CompleteStepUpUseCase } from '../../src/application/step-up/complete-step-up';
import { DescribeStepUpUseCase } from '../../src/application/step-up/describe-step-up';
import { StepUpSessions } from '../../src/application/step-up/step-up-sessions';
import { NO_APP_GRANTS } from '../../src/adapters/oidc/account-app-grants';
import { AesGcmSessionSealer } from '../../src/adapters/crypto/aes-gcm-session-sealer';
import { KeyedHashVerifiedCredentials } from '../../src/adapters/crypto/keyed-hash-verified-credentials';
import { HmacCredentialFingerprints } from '../../src/adapters/crypto/hmac-credential-fingerprints';
import { InMemoryLoginAttempts } from '../../src/adapters/state/memory/in-memory-login-attempts';
import { InMemoryRevokedSessions } from '../../src/adapters/state/memory/in-memory-revoked-sessions';
import { InMemoryUsedTotpSteps } from '../../src/adapters/state/memory/in-memory-used-totp-steps';
import type { Account } from '../../src/domain/account';
import type { Session } from '../../src/domain/session';
import { protectedDomainOf } from '../../src/domain/cookie-domain';
import { registrableDomainOf } from './public-suffixes';
import { lockPolicy } from '../../src/domain/login-failures';
import type { AccessPolicy } from '../../src/application/forward-auth/access-policy';
import type { LoginAttempts } from '../../src/application/password/login-attempts';
import { AllowAuthenticatedPolicy } from '../../src/application/forward-auth/allow-authenticated-policy';
import { SessionIssuer } from '../../src/application/sessions/session-issuer';
import { CredentialCheck } from '../../src/application/password/credential-check';
import { LoginGuard } from '../../src/application/password/login-guard';
import { makeRequestAuthenticator } from '../../src/composition/request-authenticator';
import type { GatewaySettings } from '../../src/application/settings';
import { AuthorizeProxyRequestUseCase } from '../../src/application/forward-auth/authorize-proxy-request';
import { loginTargetsOf } from '../../src/application/forward-auth/login-targets';
import { LoginTargetMemo } from '../../src/adapters/http/login-target-memo';
import type { IdentityAssertions } from '../../src/application/forward-auth/identity-assertions';
import { GetCurrentUserUseCase } from '../../src/application/sessions/get-current-user';
import { LoginUseCase } from '../../src/application/password/login';
import { LogoutUseCase } from '../../src/application/sessions/logout';
import { VerifyTotpUseCase } from '../../src/application/totp/verify-totp';
import { InMemorySessionIndex } from '../../src/adapters/state/memory/in-memory-session-index';
import { LastSeenRecorder } from '../../src/application/sessions/last-seen-recorder';
import { lastUseGranularityMs } from '../../src/domain/session-lifetime';
import { ListAccountSessionsUseCase } from '../../src/application/account/list-account-sessions';
import { RevokeAccountSessionsUseCase } from '../../src/application/account/revoke-account-sessions';
import { AesGcmOAuthFlowSealer } from '../../src/adapters/crypto/aes-gcm-oauth-flow-sealer';
import { NodeCryptoPkce } from '../../src/adapters/crypto/node-crypto-pkce';
import { InMemoryUsedOAuthFlows } from '../../src/adapters/state/memory/in-memory-used-oauth-flows';
import type { OAuthSettings } from '../../src/application/settings';
import { CompleteOAuthUseCase } from '../../src/application/oauth/complete-oauth';
import { StartOAuthUseCase } from '../../src/application/oauth/start-oauth';
import { MAX_LIVE_OAUTH_FLOWS, OAUTH_FLOW_LIFETIME_MS } from '../../src/domain/oauth-flow';
import { ANYONE } from '../../src/domain/oauth-whitelist';
import { TEST_SECRET } from './credentials';
import type { EnrolledTotpSecrets } from '../../src/application/totp/enrolled-totp-secrets';
import type { UserStore } from '../../src/application/ports/user-store';
import { EnrolledTotpUserStore } from '../../src/application/totp/enrolled-totp-user-store';
import {
  FakeOAuthProvider,
  FakeOAuthProviders,
  FakePasswordHasher,
  FakeTotpVerifier,
  FakeUserStore,
  FixedClock,
  RecordingAuditLog,
  SequentialIds,
} from './fakes';

/** The use cases over fakes and in-memory adapters, with every collaborator exposed for assertions. */
export function makeCore(
  accounts: Account[],
  options: {
    settings?: Partial<GatewaySettings>;
    policy?: AccessPolicy;
    oauth?: Partial<OAuthSettings>;
    providers?: FakeOAuthProvider[];
    attempts?: LoginAttempts;
    /** The user store answers at once, as USERS and a users file do (the synchronous forward-auth path). */
    usersAtOnce?: boolean;
    /** The signer of `response.assertion` rules (none by default: such rules are refused with store_unavailable). */
    assertions?: IdentityAssertions;
    /** Self-enrolled TOTP secrets (issue 16): every check then reads the user store through EnrolledTotpUserStore. */
    enrolled?: EnrolledTotpSecrets;
  } = {},
) {
  const clock = new FixedClock();
  const hasher = new FakePasswordHasher();
  const users = new FakeUserStore(accounts, hasher);
  users.atOnce = options.usersAtOnce === true;
  // What the checks read: the store itself, or with self-enrolled secrets laid over it (as composition binds it).
  const checkedUsers: UserStore = options.enrolled === undefined ? users : new EnrolledTotpUserStore(users, options.enrolled);
  const audit = new RecordingAuditLog();
  const ids = new SequentialIds();
  const attempts: LoginAttempts = options.attempts ?? new InMemoryLoginAttempts(1000);
  const revoked = new InMemoryRevokedSessions(clock);
  const index = new InMemorySessionIndex(clock);
  const usedSteps = new InMemoryUsedTotpSteps(clock);
  const sealer = new AesGcmSessionSealer(TEST_SECRET);
  const verified = new KeyedHashVerifiedCredentials(TEST_SECRET);
  const fingerprints = new HmacCredentialFingerprints(TEST_SECRET);
  const settings: GatewaySettings = {
    sessionLifetimeMs: 3_600_000,
    lock: lockPolicy(3, 60),
    protectedDomain: protectedDomainOf('auth.example.com', registrableDomainOf),
    basicCacheTtlMs: 60_000,
    ...options.settings,
  };
  const idleTimeoutMs = settings.idleTimeoutMs ?? 0;
  const lastSeen = new LastSeenRecorder(index, clock, undefined, { idleTimeoutMs, granularityMs: lastUseGranularityMs(idleTimeoutMs) });
  const oauthSettings: OAuthSettings = {
    appUrl: 'https://auth.example.com',
    whitelist: ANYONE,
    flowLifetimeMs: OAUTH_FLOW_LIFETIME_MS,
    maxLiveFlows: MAX_LIVE_OAUTH_FLOWS,
    ...options.oauth,
  };
  const oauthProviders = options.providers ?? [new FakeOAuthProvider('generic')];
  const providers = new FakeOAuthProviders(oauthProviders);
  const flowSealer = new AesGcmOAuthFlowSealer(TEST_SECRET);
  const usedFlows = new InMemoryUsedOAuthFlows(clock);
  const totp = new FakeTotpVerifier();
  const guard = new LoginGuard(attempts, clock, settings, audit);
  const credentials = new CredentialCheck(checkedUsers, guard, totp, usedSteps, audit, fingerprints);
  const authenticator = makeRequestAuthenticator({
    sealer,
    revoked,
    users: checkedUsers,
    verified,
    guard,
    credentials,
    clock,
    settings,
    audit,
    fingerprints,
    providers,
    oauth: oauthSettings,
    activity: lastSeen,
    renewal: { renew: (session) => issuer.renew(session) },
  });
  const issuer = new SessionIssuer(ids, clock, settings, index, audit, sealer);
  // Step-up (issue 33), without passkeys: a passkey step-up is tested with the passkey use cases.
  const stepUpReferences = new AesGcmStepUpReferences(TEST_SECRET);
  const owners = new PasskeyOwners(authenticator, checkedUsers);
  const stepUps = new StepUpSessions(stepUpReferences, clock, null);
  return {
    clock,
    ids,
    hasher,
    totp,
    users,
    audit,
    attempts,
    revoked,
    index,
    lastSeen,
    usedSteps,
    sealer,
    verified,
    fingerprints,
    settings,
    guard,
    credentials,
    authenticator,
    oauthSettings,
    oauthProviders,
    flowSealer,
    usedFlows,
    startOAuth: new StartOAuthUseCase(providers, flowSealer, new NodeCryptoPkce(), ids, clock, settings, oauthSettings),
    issuer,
    completeOAuth: new CompleteOAuthUseCase(providers, flowSealer, usedFlows, clock, settings, oauthSettings, audit, { issuer, upstream: null }),
    login: new LoginUseCase(credentials, issuer),
    verifyTotp: new VerifyTotpUseCase(revoked, authenticator, credentials, clock, issuer),
    listAccountSessions: new ListAccountSessionsUseCase(authenticator, index, revoked, NO_APP_GRANTS),
    revokeAccountSessions: new RevokeAccountSessionsUseCase(authenticator, index, revoked, audit, NO_APP_GRANTS),
    logout: new LogoutUseCase(authenticator, revoked, audit),
    getCurrentUser: new GetCurrentUserUseCase(authenticator),
    authorize: new AuthorizeProxyRequestUseCase(
      authenticator,
      options.policy ?? new AllowAuthenticatedPolicy(),
      new LoginTargetMemo(loginTargetsOf(settings)),
      audit,
      options.assertions ?? null,
      { references: stepUpReferences, clock },
    ),
    stepUpReferences,
    describeStepUp: new DescribeStepUpUseCase(owners, stepUps),
    completeStepUp: new CompleteStepUpUseCase(owners, stepUps, credentials, issuer, clock, null),
  };
}

export type Core = ReturnType<typeof makeCore>;

/** Logs in through LoginUseCase and returns the session with its cookie value; throws when the login is refused. */
export async function signIn(core: Core, login: string, password: string, ip = '198.51.100.7'): Promise<{ session: Session; token: string }> {
  const result = await core.login.execute({ login, password, ip });
  if (!result.ok) throw new Error(`login of ${login} refused: ${result.error.code}`);
  return { session: result.value.session, token: result.value.token };
}
