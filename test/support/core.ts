import { AesGcmSessionSealer } from '../../src/adapters/crypto/aes-gcm-session-sealer';
import { HmacVerifiedCredentials } from '../../src/adapters/crypto/hmac-verified-credentials';
import { InMemoryLoginAttempts } from '../../src/adapters/state/in-memory-login-attempts';
import { InMemoryRevokedSessions } from '../../src/adapters/state/in-memory-revoked-sessions';
import { InMemoryUsedTotpSteps } from '../../src/adapters/state/in-memory-used-totp-steps';
import type { Account } from '../../src/domain/account';
import { protectedDomainOf } from '../../src/domain/cookie-domain';
import { lockPolicy } from '../../src/domain/login-failures';
import type { AccessPolicy } from '../../src/application/ports/access-policy';
import type { LoginAttempts } from '../../src/application/ports/login-attempts';
import { AllowAuthenticatedPolicy } from '../../src/application/services/allow-authenticated-policy';
import { LoginGuard } from '../../src/application/services/login-guard';
import { RequestAuthenticator } from '../../src/application/services/request-authenticator';
import type { GatewaySettings } from '../../src/application/settings';
import { AuthorizeProxyRequestUseCase } from '../../src/application/use-cases/authorize-proxy-request';
import { GetCurrentUserUseCase } from '../../src/application/use-cases/get-current-user';
import { LoginUseCase } from '../../src/application/use-cases/login';
import { LogoutUseCase } from '../../src/application/use-cases/logout';
import { VerifyTotpUseCase } from '../../src/application/use-cases/verify-totp';
import { FakePasswordHasher, FakeTotpVerifier, FakeUserStore, FixedClock, RecordingAuditLog, SequentialIds } from './fakes';

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123456789';

/** The use cases over fakes and in-memory adapters, with every collaborator exposed for assertions. */
export function makeCore(accounts: Account[], options: { settings?: Partial<GatewaySettings>; policy?: AccessPolicy; attempts?: LoginAttempts } = {}) {
  const clock = new FixedClock();
  const hasher = new FakePasswordHasher();
  const users = new FakeUserStore(accounts, hasher);
  const audit = new RecordingAuditLog();
  const ids = new SequentialIds();
  const attempts: LoginAttempts = options.attempts ?? new InMemoryLoginAttempts(1000);
  const revoked = new InMemoryRevokedSessions(clock);
  const usedSteps = new InMemoryUsedTotpSteps(clock);
  const sealer = new AesGcmSessionSealer(TEST_SECRET);
  const verified = new HmacVerifiedCredentials(TEST_SECRET);
  const settings: GatewaySettings = {
    sessionLifetimeMs: 3_600_000,
    lock: lockPolicy(3, 60),
    protectedDomain: protectedDomainOf('auth.example.com'),
    basicCacheTtlMs: 60_000,
    ...options.settings,
  };
  const guard = new LoginGuard(attempts, clock, settings, audit);
  const authenticator = new RequestAuthenticator(sealer, revoked, users, hasher, verified, guard, clock, settings, audit);
  return {
    clock, hasher, users, audit, attempts, revoked, usedSteps, sealer, verified, settings, authenticator,
    login: new LoginUseCase(users, hasher, guard, clock, ids, settings, audit),
    verifyTotp: new VerifyTotpUseCase(users, new FakeTotpVerifier(), usedSteps, revoked, authenticator, guard, clock, ids, settings, audit),
    logout: new LogoutUseCase(authenticator, revoked, audit),
    getCurrentUser: new GetCurrentUserUseCase(authenticator),
    authorize: new AuthorizeProxyRequestUseCase(authenticator, options.policy ?? new AllowAuthenticatedPolicy(), settings, audit),
  };
}
