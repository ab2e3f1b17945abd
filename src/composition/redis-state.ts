// The Redis adapters of the state stores, loaded together and only when REDIS_URL is set: see
// state-adapters.ts (ADR 0015).
export { RedisConnection } from '../adapters/state/redis/redis-connection';
export { RedisEnrolledTotpSecrets } from '../adapters/state/redis/redis-enrolled-totp-secrets';
export { RedisHandoffCodes } from '../adapters/state/redis/redis-handoff-codes';
export { RedisLoginAttempts } from '../adapters/state/redis/redis-login-attempts';
export { RedisOidcArtifacts } from '../adapters/state/redis/redis-oidc-artifacts';
export { RedisPasskeyCredentials } from '../adapters/state/redis/redis-passkey-credentials';
export { RedisPasskeyEnrolmentLinks } from '../adapters/state/redis/redis-passkey-enrolment-links';
export { RedisPasskeySecondFactorChoices } from '../adapters/state/redis/redis-passkey-second-factor-choices';
export { RedisRevokedSessions } from '../adapters/state/redis/redis-revoked-sessions';
export { RedisSessionIndex } from '../adapters/state/redis/redis-session-index';
export { RedisSigningKeys } from '../adapters/state/redis/redis-signing-keys';
export { RedisUsedOAuthFlows } from '../adapters/state/redis/redis-used-oauth-flows';
export { RedisUsedTotpSteps } from '../adapters/state/redis/redis-used-totp-steps';
