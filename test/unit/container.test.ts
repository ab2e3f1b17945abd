import type { OidcClients } from '../../src/application/oidc/oidc-clients';
import { AuthorizeOidcLoginUseCase } from '../../src/application/oidc/authorize-oidc-login';
import { FindOidcAccountUseCase } from '../../src/application/oidc/find-oidc-account';
import bcrypt from 'bcrypt';
import { optionalModules } from '../../src/composition/optional-modules';
import { createGuardrails, generate } from 'otplib';
import { AesGcmSessionSealer } from '../../src/adapters/crypto/aes-gcm-session-sealer';
import { ClientAddressResolver } from '../../src/adapters/http/client-address';
import { AllowAuthenticatedPolicy } from '../../src/application/forward-auth/allow-authenticated-policy';
import { SessionIssuer } from '../../src/application/sessions/session-issuer';
import { CredentialCheck } from '../../src/application/password/credential-check';
import { LoginGuard } from '../../src/application/password/login-guard';
import { RequestAuthenticator } from '../../src/application/sessions/request-authenticator';
import type { GatewaySettings } from '../../src/application/settings';
import type { OAuthSettings } from '../../src/application/settings';
import { AuthorizeProxyRequestUseCase } from '../../src/application/forward-auth/authorize-proxy-request';
import { NodeCryptoIdentityAssertions } from '../../src/adapters/crypto/node-crypto-identity-assertions';
import { CheckReadinessUseCase } from '../../src/application/readiness/check-readiness';
import { CompleteOAuthUseCase } from '../../src/application/oauth/complete-oauth';
import { StartOAuthUseCase } from '../../src/application/oauth/start-oauth';
import { GetCurrentUserUseCase } from '../../src/application/sessions/get-current-user';
import { LoginUseCase } from '../../src/application/password/login';
import { LogoutUseCase } from '../../src/application/sessions/logout';
import { VerifyTotpUseCase } from '../../src/application/totp/verify-totp';
import { loadConfig } from '../../src/composition/config';
import type { Config } from '../../src/config/load';
import { buildContainer } from '../../src/composition/container';
import { SqliteDatabase } from '../../src/adapters/state/sqlite/sqlite-database';
import { RedisEnrolledTotpSecrets } from '../../src/adapters/state/redis/redis-enrolled-totp-secrets';
import { SqliteLoginAttempts } from '../../src/adapters/state/sqlite/sqlite-login-attempts';
import { SqliteRevokedSessions } from '../../src/adapters/state/sqlite/sqlite-revoked-sessions';
import { SqliteUsedOAuthFlows } from '../../src/adapters/state/sqlite/sqlite-used-oauth-flows';
import { SqliteUsedTotpSteps } from '../../src/adapters/state/sqlite/sqlite-used-totp-steps';
import { InMemoryRevokedSessions } from '../../src/adapters/state/memory/in-memory-revoked-sessions';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDataDir } from '../support/data-dir';
import { PrometheusMetrics } from '../../src/adapters/metrics/prometheus-metrics';
import { RedisConnection } from '../../src/adapters/state/redis/redis-connection';
import { RedisLoginAttempts } from '../../src/adapters/state/redis/redis-login-attempts';
import { RedisRevokedSessions } from '../../src/adapters/state/redis/redis-revoked-sessions';
import { RedisUsedOAuthFlows } from '../../src/adapters/state/redis/redis-used-oauth-flows';
import { RedisUsedTotpSteps } from '../../src/adapters/state/redis/redis-used-totp-steps';
import { TOKENS } from '../../src/composition/tokens';
import { PostgresHandoffCodes } from '../../src/adapters/state/postgres/postgres-handoff-codes';
import { InMemoryHandoffCodes } from '../../src/adapters/state/memory/in-memory-handoff-codes';
import { RedisHandoffCodes } from '../../src/adapters/state/redis/redis-handoff-codes';
import { SqliteHandoffCodes } from '../../src/adapters/state/sqlite/sqlite-handoff-codes';
import { HmacPasskeyEnrolmentLinks } from '../../src/adapters/crypto/hmac-one-time-links';
import { InMemoryPasskeySecondFactorChoices } from '../../src/adapters/state/memory/in-memory-passkey-second-factor-choices';
import { RedisPasskeySecondFactorChoices } from '../../src/adapters/state/redis/redis-passkey-second-factor-choices';
import { SqlitePasskeySecondFactorChoices } from '../../src/adapters/state/sqlite/sqlite-passkey-second-factor-choices';
import { IssueHandoffCodeUseCase } from '../../src/application/handoff/issue-handoff-code';
import { RedeemHandoffCodeUseCase } from '../../src/application/handoff/redeem-handoff-code';
import { PostgresDatabase } from '../../src/adapters/state/postgres/postgres-database';
import { PostgresLoginAttempts } from '../../src/adapters/state/postgres/postgres-login-attempts';
import { PostgresRevokedSessions } from '../../src/adapters/state/postgres/postgres-revoked-sessions';
import { PostgresUsedOAuthFlows } from '../../src/adapters/state/postgres/postgres-used-oauth-flows';
import { PostgresUsedTotpSteps } from '../../src/adapters/state/postgres/postgres-used-totp-steps';
import { AesGcmStepUpReferences } from '../../src/adapters/crypto/aes-gcm-step-up-references';
import { HmacPasswordLinks } from '../../src/adapters/crypto/hmac-one-time-links';
import { aUser } from '../support/builders';
import { FakeUserStore, FixedClock } from '../support/fakes';

const SECRET = 'container-test-secret-0123456789-abcdefghij';
const TOTP_SECRET = 'GEZDGNBVGY3TQOJQ';

function testConfig(env: Record<string, string> = {}): Config {
  const loaded = loadConfig({
    env: {
      APP_URL: 'https://auth.example.com',
      SECRET,
      USERS: `alice:${bcrypt.hashSync('pw', 4)},tom:${bcrypt.hashSync('pw', 4)}:${TOTP_SECRET}`,
      LOG_LEVEL: 'silent',
      ...env,
    },
  });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  return loaded.config;
}

const hasMethods =
  (...names: string[]) =>
  (value: unknown): void => {
    for (const name of names) expect(typeof (value as Record<string, unknown>)[name]).toBe('function');
  };
const isA =
  (type: abstract new (...args: never[]) => unknown) =>
  (value: unknown): void => {
    expect(value).toBeInstanceOf(type);
  };

/** The shape each token must resolve to. Keyed like TOKENS, so a new token without a check fails the coverage test. */
const EXPECTED: Record<keyof typeof TOKENS, (value: unknown, config: Config) => void> = {
  Config: (value, config) => expect(value).toBe(config),
  Settings: (value) => {
    const settings = value as GatewaySettings;
    expect(settings.sessionLifetimeMs).toBe(86_400_000);
    expect(settings.lock).toEqual({ maxAccountFailures: 5, maxAddressFailures: 50, lockMs: 300_000 });
    expect(settings.protectedDomain).toEqual({ domain: 'example.com', shareable: true });
    expect(settings.basicCacheTtlMs).toBe(60_000);
  },
  Logger: hasMethods('debug', 'info', 'warn', 'error'),
  AccountDirectory: hasMethods('list', 'listing'),
  AdminGate: hasMethods('admit'),
  ListAdminUsersUseCase: hasMethods('execute'),
  ListAdminSessionsUseCase: hasMethods('execute'),
  RevokeAdminSessionsUseCase: hasMethods('execute'),
  ExplainAccessUseCase: hasMethods('execute'),
  EditAdminUserUseCase: hasMethods('execute'),
  // The test gateway keeps its accounts in USERS: no users file, no editor.
  UsersFileEditor: (value) => expect(value).toEqual({ editor: null }),
  ListAdminAppsUseCase: hasMethods('execute'),
  ListOidcClientsUseCase: hasMethods('execute'),
  ListAdminTokensUseCase: hasMethods('execute'),
  RevokeAdminTokenUseCase: hasMethods('execute'),
  AuditTrail: hasMethods('append', 'query', 'prune'),
  // Recorded only with the admin console on (ADMIN_GROUPS): the configuration here has none.
  AuditTrailRecorder: (value) => expect(value).toEqual({ recorder: null }),
  QueryAuditTrailUseCase: hasMethods('execute'),
  ExportAuditTrailUseCase: hasMethods('execute'),
  PasswordLinks: isA(HmacPasswordLinks),
  IssueInvitationUseCase: hasMethods('execute'),
  RemovePersonTotpUseCase: hasMethods('execute'),
  RemovePersonPasskeysUseCase: hasMethods('execute'),
  SetPasswordWithLinkUseCase: hasMethods('execute'),
  PersonSessions: (value) => expect(Object.keys(value as object).sort()).toEqual(['index', 'revoked']),
  PasswordWrite: (value) => expect(Object.keys(value as object).sort()).toEqual(['editor', 'hasher', 'index', 'revoked']),
  // PASSKEYS is on by default: an invitation may be a passkey link.
  PasskeyEnrolmentLinksIfOn: hasMethods('put', 'take'),
  AuditLog: hasMethods('record'),
  Clock: (value) => expect(typeof (value as FixedClock).now()).toBe('number'),
  IdGenerator: (value) => {
    const ids = value as { next(): string };
    expect(ids.next()).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(ids.next()).not.toBe(ids.next());
  },
  PasswordHasher: hasMethods('verify', 'hash', 'verifyDecoy'),
  TotpVerifier: hasMethods('verify'),
  UsedTotpSteps: hasMethods('claim'),
  LoginAttempts: hasMethods('lockedUntil', 'reserve', 'refund', 'reset'),
  SessionSealer: isA(AesGcmSessionSealer),
  RevokedSessions: hasMethods('revoke', 'isRevoked'),
  RevokedSessionsStore: hasMethods('revoke', 'isRevoked'),
  VerifiedCredentials: hasMethods('get', 'put', 'forgetUser', 'keyFor'),
  UserStore: hasMethods('findAccount', 'verifyPassword', 'currentAccount'),
  StoreUsers: hasMethods('findAccount', 'verifyPassword', 'currentAccount'),
  EnrolledTotpSecrets: hasMethods('secretOf', 'enrol', 'remove'),
  TotpSecretSealer: hasMethods('seal', 'open'),
  CredentialFingerprints: hasMethods('of'),
  Resources: hasMethods('add', 'closeAll'),
  AccessPolicy: isA(AllowAuthenticatedPolicy),
  AccessRulesSource: hasMethods('current', 'version', 'problems', 'close'),
  OAuthProviders: (value) => {
    hasMethods('get', 'ids')(value);
    expect((value as { ids(): string[] }).ids()).toEqual([]);
  },
  OAuthSettings: (value) => {
    const oauth = value as OAuthSettings;
    expect(oauth.appUrl).toBe('https://auth.example.com');
    expect(oauth.flowLifetimeMs).toBeGreaterThan(0);
    expect(oauth.maxLiveFlows).toBeGreaterThan(0);
    expect(oauth.whitelist).toBeDefined();
  },
  OAuthFlowSealer: hasMethods('seal', 'unseal'),
  UsedOAuthFlows: hasMethods('use'),
  PasskeyCredentials: hasMethods('add', 'find', 'list', 'rename', 'remove', 'recordUse'),
  Pkce: (value) => {
    const pkce = value as { verifier(): string; challenge(v: string): string };
    const verifier = pkce.verifier();
    expect(verifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
    expect(pkce.challenge(verifier)).not.toBe(verifier);
  },
  LoginGuard: isA(LoginGuard),
  CredentialCheck: isA(CredentialCheck),
  SessionIssuer: isA(SessionIssuer),
  RequestAuthenticator: isA(RequestAuthenticator),
  LoginUseCase: isA(LoginUseCase),
  VerifyTotpUseCase: isA(VerifyTotpUseCase),
  LogoutUseCase: isA(LogoutUseCase),
  GetCurrentUserUseCase: isA(GetCurrentUserUseCase),
  AuthorizeProxyRequestUseCase: isA(AuthorizeProxyRequestUseCase),
  IdentityAssertions: isA(NodeCryptoIdentityAssertions),
  StartOAuthUseCase: isA(StartOAuthUseCase),
  HandoffCodes: isA(InMemoryHandoffCodes),
  PasskeyEnrolmentLinks: isA(HmacPasskeyEnrolmentLinks),
  PasskeySecondFactorChoices: isA(InMemoryPasskeySecondFactorChoices),
  PasskeySecondFactor: hasMethods('owed'),
  HandoffSettings: (value) => expect(value).toEqual({ secondaries: [], codeLifetimeMs: 30_000 }),
  IssueHandoffCodeUseCase: isA(IssueHandoffCodeUseCase),
  RedeemHandoffCodeUseCase: isA(RedeemHandoffCodeUseCase),
  SessionIndex: hasMethods('register', 'list', 'touch', 'lastSeen'),
  LastSeenRecorder: hasMethods('seen', 'flush'),
  ListAccountSessionsUseCase: hasMethods('execute'),
  RevokeAccountSessionsUseCase: hasMethods('execute'),
  SignOutOfAppUseCase: hasMethods('execute'),
  CompleteOAuthUseCase: isA(CompleteOAuthUseCase),
  Redis: (value) => expect(value).toEqual({ connection: null }),
  Database: (value) => expect(value).toEqual({ database: null }),
  Postgres: (value) => expect(value).toEqual({ postgres: null }),
  Metrics: (value) => expect(value).toEqual({ metrics: null }),
  Lifecycle: hasMethods('check', 'drain'),
  ReadinessChecks: (value) => expect((value as { name: string }[]).map((c) => c.name)).toEqual(['gateway']),
  CheckReadinessUseCase: isA(CheckReadinessUseCase),
  HttpSettings: (value) => {
    const http = value as Record<string, unknown>;
    expect(http.appUrl).toBe('https://auth.example.com');
    expect(http.cookies).toEqual({ domain: { domain: 'example.com', shareable: true }, secure: true });
    expect(http).not.toHaveProperty('sessionSealer');
    expect(http.clientAddress).toBeInstanceOf(ClientAddressResolver);
    expect(http.app).toMatchObject({ title: 'Portcullis', domain: 'example.com', oauthAutoRedirect: 'none', configuredProviders: ['username'] });
  },
  OidcArtifacts: hasMethods('save', 'find', 'findByUid', 'findByUserCode', 'consume', 'destroy', 'revokeByGrantId'),
  SigningKeys: hasMethods('getOrCreate', 'replace'),
  OidcClients: (value) => expect((value as OidcClients).all()).toEqual([]),
  SubjectIdentifiers: hasMethods('subjectOf'),
  OidcAccounts: hasMethods('remember', 'find', 'endTokensBefore', 'tokensEnded'),
  AppGrants: hasMethods('list', 'end', 'endAll'),
  OidcSessionLogins: hasMethods('add', 'take'),
  LogoutDeliveries: hasMethods('add', 'claim', 'retry', 'remove'),
  EndOidcSessionLoginsUseCase: hasMethods('execute'),
  RememberOidcLoginUseCase: hasMethods('execute'),
  DeliverLogoutsUseCase: hasMethods('execute'),
  LogoutDeliveryWorker: hasMethods('start', 'poke', 'stop'),
  FrontchannelLogouts: hasMethods('put', 'take'),
  TakeFrontchannelLogoutsUseCase: hasMethods('execute'),
  EndRemovedAccountsUseCase: hasMethods('execute'),
  // Both null without an upstream OpenID Connect provider (a generic one with an issuer).
  UpstreamLogout: (value) => expect(value).toEqual({ sessions: null, backchannelLogout: null }),
  AuthorizeOidcLoginUseCase: isA(AuthorizeOidcLoginUseCase),
  FindOidcAccountUseCase: isA(FindOidcAccountUseCase),
  // No client configured: the provider is off (no discovery, the library never loaded); only the JWKS for signed assertions remains, served while a rule asks for them.
  OidcHttp: (value) => expect(value).toEqual({ oidc: { middleware: expect.any(Function) } }),
  // PASSKEYS is on by default: the passkey second step and store are handed to the login paths.
  PasskeySecondFactorIfOn: hasMethods('owed'),
  PasskeyCredentialsIfOn: hasMethods('add', 'find', 'list'),
  TotpSecretIssuer: hasMethods('newSecret', 'uri'),
  SecondFactorSessions: hasMethods('reissue'),
  GetTotpEnrolmentUseCase: hasMethods('execute'),
  StartTotpEnrolmentUseCase: hasMethods('execute'),
  ConfirmTotpEnrolmentUseCase: hasMethods('execute'),
  RemoveTotpEnrolmentUseCase: hasMethods('execute'),
  PasswordWriters: (value) => expect(value).toEqual(expect.objectContaining({ sources: expect.anything(), hasher: expect.anything() })),
  GetPasswordChangeUseCase: hasMethods('execute'),
  ChangePasswordUseCase: hasMethods('execute'),
  PendingSecondFactors: hasMethods('of'),
  PasskeyCeremonies: hasMethods('registrationOptions'),
  PasskeyChallengeSealer: hasMethods('seal', 'unseal'),
  PasskeyOwners: hasMethods('of'),
  PasskeyAssertionCheck: hasMethods('check'),
  Reauthentication: hasMethods('prove'),
  StepUpReferences: isA(AesGcmStepUpReferences),
  StepUpPrompt: (value) => expect(value).toEqual({ references: expect.any(AesGcmStepUpReferences), clock: expect.anything() }),
  StepUpSessions: hasMethods('open', 'available'),
  // PASSKEYS is on by default: a step-up may ask for a passkey.
  StepUpReauthentication: hasMethods('prove', 'passkey'),
  DescribeStepUpUseCase: hasMethods('execute'),
  CompleteStepUpUseCase: hasMethods('execute'),
  StartPasskeyRegistrationUseCase: hasMethods('execute'),
  FinishPasskeyRegistrationUseCase: hasMethods('execute'),
  StartPasskeyLoginUseCase: hasMethods('execute'),
  StartPasskeyReauthenticationUseCase: hasMethods('execute'),
  FinishPasskeyLoginUseCase: hasMethods('execute'),
  ListPasskeysUseCase: hasMethods('execute'),
  ChoosePasskeySecondFactorUseCase: hasMethods('execute'),
  ChangePasskeyUseCase: hasMethods('execute'),
  StartPasskeyEnrolmentUseCase: hasMethods('execute'),
  FinishPasskeyEnrolmentUseCase: hasMethods('execute'),
  PasskeyEnrolmentCeremony: (value) => expect(Object.keys(value as object).sort()).toEqual(['ceremonies', 'sealer', 'used']),
  TotpEnrolmentProofs: (value) => expect(Object.keys(value as object).sort()).toEqual(['credentials', 'totp', 'usedSteps']),
  LoginTargets: hasMethods('of'),
  AccessTokens: hasMethods('add', 'findByHash', 'list', 'revoke', 'touch', 'prune'),
  TokenSecrets: hasMethods('issue', 'hashOf'),
  TokenAuthenticator: hasMethods('authenticate', 'flush'),
  TokenIssuer: hasMethods('issue'),
  TokenRevocation: hasMethods('revoke'),
  TokenAdministration: hasMethods('create', 'list', 'revoke'),
  CreateAccessTokenUseCase: hasMethods('execute'),
  ListAccessTokensUseCase: hasMethods('execute'),
  RevokeAccessTokenUseCase: hasMethods('execute'),
  // No JWT issuer in this configuration: neither jose nor a verifier.
  Jwts: (value) => expect(value).toEqual({ authenticator: null }),
  RecordStores: (value) => expect((value as { kind: string }).kind).toBe('memory'),
  ShortLivedStores: (value) => expect((value as { kind: string }).kind).toBe('memory'),
};

describe('buildContainer', () => {
  it('has a shape check for every token', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(TOKENS).sort());
  });

  it.each(Object.keys(TOKENS) as Array<keyof typeof TOKENS>)('resolves %s to a value of the expected shape', (name) => {
    const config = testConfig();
    const value = buildContainer(config).get(TOKENS[name]);
    expect(value).not.toBeNull();
    expect(value).toBeDefined();
    EXPECTED[name](value, config);
  });

  it('hands out one instance per token (singletons)', () => {
    const container = buildContainer(testConfig());
    for (const token of Object.values(TOKENS)) expect(container.get(token)).toBe(container.get(token));
  });

  it('has the login seal its session with the sealer that opens cookies', async () => {
    const container = buildContainer(testConfig());
    const result = await container.get(TOKENS.LoginUseCase).execute({ login: 'alice', password: 'pw', ip: '192.0.2.1' });
    if (!result.ok) throw new Error(result.error.code);
    expect((container.get(TOKENS.SessionSealer) as AesGcmSessionSealer).unseal(result.value.token)).toMatchObject({
      id: result.value.session.id,
      username: 'alice',
    });
  });

  it('wires the configured accounts, bcrypt and the sealer into a working login', async () => {
    const container = buildContainer(testConfig());
    const result = await container.get(TOKENS.LoginUseCase).execute({ login: 'alice@example.com', password: 'pw', ip: '192.0.2.1' });
    expect(result.ok && result.value.session).toMatchObject({ username: 'alice', email: 'alice@example.com', totpPending: false });
  });

  it('wires otplib into a working TOTP step with a real code', async () => {
    const clock = new FixedClock(Date.UTC(2026, 0, 1, 12, 0, 10));
    const container = buildContainer(testConfig(), { [TOKENS.Clock]: clock });
    const login = await container.get(TOKENS.LoginUseCase).execute({ login: 'tom', password: 'pw', ip: '192.0.2.1' });
    if (!login.ok) throw new Error(login.error.code);
    const sealer = container.get(TOKENS.SessionSealer);
    const code = await generate({ secret: TOTP_SECRET, epoch: clock.now() / 1000, guardrails: createGuardrails({ MIN_SECRET_BYTES: 10 }) });
    const verified = await container.get(TOKENS.VerifyTotpUseCase).execute({ sessionToken: sealer.seal(login.value.session), code, ip: '192.0.2.1' });
    expect(verified.ok && verified.value.session).toMatchObject({ username: 'tom', totp: true, totpPending: false });
  });

  it('replaces a port with an override, and the use cases get the replacement', async () => {
    const users = new FakeUserStore([aUser().named('zoe').withPassword('fake-pw').build()]);
    const clock = new FixedClock(Date.UTC(2030, 5, 1));
    const container = buildContainer(testConfig(), { [TOKENS.UserStore]: users, [TOKENS.Clock]: clock });
    expect(container.get(TOKENS.UserStore)).toBe(users);
    expect(container.get(TOKENS.Clock)).toBe(clock);
    const result = await container.get(TOKENS.LoginUseCase).execute({ login: 'zoe', password: 'fake-pw', ip: '192.0.2.1' });
    expect(result.ok && result.value.session).toMatchObject({ username: 'zoe', issuedAt: clock.now() });
    expect((await container.get(TOKENS.LoginUseCase).execute({ login: 'alice', password: 'pw', ip: '192.0.2.1' })).ok).toBe(false);
  });

  it('binds the Redis stores, Redis readiness and Prometheus metrics when REDIS_URL and METRICS_PORT are set', async () => {
    const container = buildContainer(testConfig({ REDIS_URL: 'redis://127.0.0.1:1', METRICS_PORT: '9100' }));
    const { connection } = container.get(TOKENS.Redis);
    try {
      expect(connection).toBeInstanceOf(RedisConnection);
      expect(container.get(TOKENS.LoginAttempts)).toBeInstanceOf(RedisLoginAttempts);
      expect(container.get(TOKENS.RevokedSessions)).toBeInstanceOf(RedisRevokedSessions);
      expect(container.get(TOKENS.UsedTotpSteps)).toBeInstanceOf(RedisUsedTotpSteps);
      expect(container.get(TOKENS.UsedOAuthFlows)).toBeInstanceOf(RedisUsedOAuthFlows);
      expect(container.get(TOKENS.HandoffCodes)).toBeInstanceOf(RedisHandoffCodes);
      expect(container.get(TOKENS.PasskeySecondFactorChoices)).toBeInstanceOf(RedisPasskeySecondFactorChoices);
      expect(container.get(TOKENS.EnrolledTotpSecrets)).toBeInstanceOf(RedisEnrolledTotpSecrets);
      expect(container.get(TOKENS.ReadinessChecks).map((c) => c.name)).toEqual(['gateway', 'redis', 'revocations', 'totp-enrolments']);
      expect(container.get(TOKENS.Metrics).metrics).toBeInstanceOf(PrometheusMetrics);
    } finally {
      await connection?.close();
    }
  });

  it('keeps the state in memory when there is neither REDIS_URL nor DATA_DIR (a library gateway)', () => {
    const container = buildContainer(testConfig());
    expect(container.get(TOKENS.RevokedSessions)).toBeInstanceOf(InMemoryRevokedSessions);
  });

  it('binds the SQLite stores on one database in DATA_DIR when REDIS_URL is not set', () => {
    const data = tempDataDir();
    const container = buildContainer(testConfig({ DATA_DIR: data.dir, METRICS_PORT: '9100' }));
    const { database } = container.get(TOKENS.Database);
    try {
      expect(database).toBeInstanceOf(SqliteDatabase);
      expect(database?.path).toBe(join(data.dir, 'portcullis.db'));
      expect(container.get(TOKENS.LoginAttempts)).toBeInstanceOf(SqliteLoginAttempts);
      expect(container.get(TOKENS.RevokedSessions)).toBeInstanceOf(SqliteRevokedSessions);
      expect(container.get(TOKENS.UsedTotpSteps)).toBeInstanceOf(SqliteUsedTotpSteps);
      expect(container.get(TOKENS.UsedOAuthFlows)).toBeInstanceOf(SqliteUsedOAuthFlows);
      expect(container.get(TOKENS.HandoffCodes)).toBeInstanceOf(SqliteHandoffCodes);
      expect(container.get(TOKENS.PasskeySecondFactorChoices)).toBeInstanceOf(SqlitePasskeySecondFactorChoices);
    } finally {
      database?.close();
      data.remove();
    }
  });

  it('lets REDIS_URL win over DATA_DIR: the shared store for several replicas, and no file is made', async () => {
    const data = tempDataDir();
    const container = buildContainer(testConfig({ DATA_DIR: data.dir, REDIS_URL: 'redis://127.0.0.1:1' }));
    const { connection } = container.get(TOKENS.Redis);
    try {
      expect(container.get(TOKENS.Database).database).toBeNull();
      expect(container.get(TOKENS.RevokedSessions)).toBeInstanceOf(RedisRevokedSessions);
      expect(existsSync(join(data.dir, 'portcullis.db'))).toBe(false);
    } finally {
      await connection?.close();
      data.remove();
    }
  });

  it('binds every store to PostgreSQL with DATABASE_URL (no file in DATA_DIR), with its readiness and revocations checks', async () => {
    const data = tempDataDir();
    const container = buildContainer(testConfig({ DATA_DIR: data.dir, DATABASE_URL: 'postgres://portcullis:pw@127.0.0.1:1/portcullis' }));
    const { postgres } = container.get(TOKENS.Postgres);
    try {
      expect(postgres).toBeInstanceOf(PostgresDatabase);
      expect(container.get(TOKENS.Database).database).toBeNull();
      expect(container.get(TOKENS.LoginAttempts)).toBeInstanceOf(PostgresLoginAttempts);
      expect(container.get(TOKENS.RevokedSessions)).toBeInstanceOf(PostgresRevokedSessions);
      expect(container.get(TOKENS.UsedTotpSteps)).toBeInstanceOf(PostgresUsedTotpSteps);
      expect(container.get(TOKENS.UsedOAuthFlows)).toBeInstanceOf(PostgresUsedOAuthFlows);
      expect(container.get(TOKENS.HandoffCodes)).toBeInstanceOf(PostgresHandoffCodes);
      expect(container.get(TOKENS.ReadinessChecks).map((c) => c.name)).toEqual(['gateway', 'postgres', 'revocations']);
      expect(existsSync(join(data.dir, 'portcullis.db'))).toBe(false);
    } finally {
      await postgres?.close();
      data.remove();
    }
  });

  it('with REDIS_URL and DATABASE_URL keeps revocations in PostgreSQL and the short-lived state in Redis', async () => {
    const container = buildContainer(testConfig({ REDIS_URL: 'redis://127.0.0.1:1', DATABASE_URL: 'postgres://portcullis:pw@127.0.0.1:1/portcullis' }));
    const { connection } = container.get(TOKENS.Redis);
    const { postgres } = container.get(TOKENS.Postgres);
    try {
      expect(container.get(TOKENS.RevokedSessions)).toBeInstanceOf(PostgresRevokedSessions);
      expect(container.get(TOKENS.LoginAttempts)).toBeInstanceOf(RedisLoginAttempts);
      expect(container.get(TOKENS.UsedTotpSteps)).toBeInstanceOf(RedisUsedTotpSteps);
      expect(container.get(TOKENS.UsedOAuthFlows)).toBeInstanceOf(RedisUsedOAuthFlows);
      expect(container.get(TOKENS.HandoffCodes)).toBeInstanceOf(RedisHandoffCodes);
      expect(container.get(TOKENS.ReadinessChecks).map((c) => c.name)).toEqual(['gateway', 'redis', 'postgres', 'revocations']);
    } finally {
      await connection?.close();
      await postgres?.close();
    }
  });

  it('derives a host-only cookie and http settings from a localhost APP_URL', () => {
    const container = buildContainer(testConfig({ APP_URL: 'http://localhost:3000' }));
    expect(container.get(TOKENS.Settings).protectedDomain).toEqual({ domain: 'localhost', shareable: false });
    expect(container.get(TOKENS.HttpSettings).cookies.secure).toBe(false);
  });
  it('runs the decoy check for unknown accounts at the cost of the configured hashes', async () => {
    const spy = jest.spyOn(bcrypt, 'hash');
    try {
      const hasher = buildContainer(testConfig()).get(TOKENS.PasswordHasher);
      await hasher.verifyDecoy('guess');
      expect(spy.mock.calls.map((call) => call[1])).toEqual([4]);
    } finally {
      spy.mockRestore();
    }
  });

  it('makes the decoy of Argon2id when accounts use it, the costlier kind in use', async () => {
    const argon2id = '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$' + 'A'.repeat(43);
    // The library composition hands the hasher: spied on where it lives.
    const argon2 = optionalModules.argon2();
    const users = `alice:${argon2id},bob:${bcrypt.hashSync('pw', 10)},carol:${bcrypt.hashSync('pw', 10)}`;
    const bcryptSpy = jest.spyOn(bcrypt, 'hash');
    const argon2Spy = jest.spyOn(argon2, 'hash').mockResolvedValue('$argon2id$v=19$m=65536,p=4,t=3$c29tZXNhbHRzb21lc2FsdA$' + 'B'.repeat(43));
    const verifySpy = jest.spyOn(argon2, 'verify').mockResolvedValue(false);
    try {
      const hasher = buildContainer(testConfig({ USERS: users })).get(TOKENS.PasswordHasher);
      await hasher.verifyDecoy('guess');
      expect(bcryptSpy).not.toHaveBeenCalled();
      expect(argon2Spy.mock.calls.map((call) => call[1])).toEqual([{ type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 }]);
      expect(verifySpy).toHaveBeenCalledTimes(1);
    } finally {
      bcryptSpy.mockRestore();
      argon2Spy.mockRestore();
      verifySpy.mockRestore();
    }
  });
});
