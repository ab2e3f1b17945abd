import { RedisAuditTrail } from './redis-audit-trail';
import type { StateStores, StoreDeps } from '../state-stores';
import { RedisLogoutDeliveries } from './redis-logout-deliveries';
import type { RedisConnection } from './redis-connection';
import { RedisAccessTokens } from './redis-access-tokens';
import { RedisEnrolledTotpSecrets } from './redis-enrolled-totp-secrets';
import { RedisHandoffCodes } from './redis-handoff-codes';
import { RedisLoginAttempts } from './redis-login-attempts';
import { RedisOidcArtifacts } from './redis-oidc-artifacts';
import { RedisPasskeyCredentials } from './redis-passkey-credentials';
import { RedisPasskeyEnrolmentLinks } from './redis-passkey-enrolment-links';
import { RedisPasskeySecondFactorChoices } from './redis-passkey-second-factor-choices';
import { RedisRevokedSessions } from './redis-revoked-sessions';
import { RedisSessionIndex } from './redis-session-index';
import { RedisSigningKeys } from './redis-signing-keys';
import { RedisUsedOAuthFlows } from './redis-used-oauth-flows';
import { RedisUsedTotpSteps } from './redis-used-totp-steps';

export { RedisConnection } from './redis-connection';

/**
 * Every store in Redis (REDIS_URL): shared by every replica; durable only as far as the server's
 * persistence goes (ADR 0019). This module and ioredis load only when REDIS_URL is set (ADR 0015).
 * The revocations and the enrolled TOTP secrets keep a local mirror fed by a subscription:
 * started by `gateway.start()`, and holding readiness until loaded.
 */
export function redisStores(redis: RedisConnection, { clock, logger, registry }: StoreDeps): StateStores {
  return {
    kind: 'redis',
    usedTotpSteps: () => new RedisUsedTotpSteps(redis, clock),
    loginAttempts: () => new RedisLoginAttempts(redis),
    revokedSessions: () => {
      const revoked = new RedisRevokedSessions(redis, clock, logger);
      // Until loaded it refuses cookies (503); a replica that has not loaded them is not ready.
      registry.onStart(() => revoked.start());
      registry.ready(revoked);
      return revoked;
    },
    usedOAuthFlows: () => new RedisUsedOAuthFlows(redis, clock),
    sessionIndex: () => new RedisSessionIndex(redis, clock),
    enrolledTotpSecrets: (sealer) => {
      const shared = new RedisEnrolledTotpSecrets(redis, sealer, logger);
      // Nor the self-enrolled TOTP secrets: logins and HTTP Basic answer 503 until they have loaded.
      registry.onStart(() => shared.start());
      registry.ready(shared);
      return shared;
    },
    passkeyCredentials: () => new RedisPasskeyCredentials(redis),
    passkeyEnrolmentLinks: () => new RedisPasskeyEnrolmentLinks(redis, clock),
    passkeySecondFactorChoices: () => new RedisPasskeySecondFactorChoices(redis),
    handoffCodes: () => new RedisHandoffCodes(redis, clock),
    oidcArtifacts: () => new RedisOidcArtifacts(redis),
    signingKeys: () => new RedisSigningKeys(redis),
    accessTokens: () => new RedisAccessTokens(redis),
    logoutDeliveries: () => new RedisLogoutDeliveries(redis),
    auditTrail: () => new RedisAuditTrail(redis),
  };
}
