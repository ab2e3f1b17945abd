// The Redis adapters of the state stores, loaded together and only when REDIS_URL is set: see
// state-adapters.ts (ADR 0015).
export { RedisConnection } from '../adapters/redis/redis-connection';
export { RedisEnrolledTotpSecrets } from '../adapters/state/redis-enrolled-totp-secrets';
export { RedisHandoffCodes } from '../adapters/state/redis-handoff-codes';
export { RedisLoginAttempts } from '../adapters/state/redis-login-attempts';
export { RedisOidcArtifacts } from '../adapters/state/redis-oidc-artifacts';
export { RedisPasskeyCredentials } from '../adapters/state/redis-passkey-credentials';
export { RedisPasskeyEnrolmentLinks } from '../adapters/state/redis-passkey-enrolment-links';
export { RedisPasskeySecondFactorChoices } from '../adapters/state/redis-passkey-second-factor-choices';
export { RedisRevokedSessions } from '../adapters/state/redis-revoked-sessions';
export { RedisSessionIndex } from '../adapters/state/redis-session-index';
export { RedisSigningKeys } from '../adapters/state/redis-signing-keys';
export { RedisUsedOAuthFlows } from '../adapters/state/redis-used-oauth-flows';
export { RedisUsedTotpSteps } from '../adapters/state/redis-used-totp-steps';
