// The PostgreSQL adapters of the state stores, loaded together and only when DATABASE_URL is set: see
// state-adapters.ts (ADR 0015).
export { PostgresDatabase } from '../adapters/state/postgres/postgres-database';
export { PostgresEnrolledTotpSecrets } from '../adapters/state/postgres/postgres-enrolled-totp-secrets';
export { PostgresHandoffCodes } from '../adapters/state/postgres/postgres-handoff-codes';
export { PostgresLoginAttempts } from '../adapters/state/postgres/postgres-login-attempts';
export { PostgresOidcArtifacts } from '../adapters/state/postgres/postgres-oidc-artifacts';
export { PostgresPasskeyCredentials } from '../adapters/state/postgres/postgres-passkey-credentials';
export { PostgresPasskeyEnrolmentLinks } from '../adapters/state/postgres/postgres-passkey-enrolment-links';
export { PostgresPasskeySecondFactorChoices } from '../adapters/state/postgres/postgres-passkey-second-factor-choices';
export { PostgresRevokedSessions } from '../adapters/state/postgres/postgres-revoked-sessions';
export { PostgresSessionIndex } from '../adapters/state/postgres/postgres-session-index';
export { PostgresSigningKeys } from '../adapters/state/postgres/postgres-signing-keys';
export { PostgresUsedOAuthFlows } from '../adapters/state/postgres/postgres-used-oauth-flows';
export { PostgresUsedTotpSteps } from '../adapters/state/postgres/postgres-used-totp-steps';
