import { PostgresAuditTrail } from './postgres-audit-trail';
import type { StateStores, StoreDeps } from '../state-stores';
import { PostgresLogoutDeliveries } from './postgres-logout-deliveries';
import type { PostgresDatabase } from './postgres-database';
import { PostgresAccessTokens } from './postgres-access-tokens';
import { PostgresEnrolledTotpSecrets } from './postgres-enrolled-totp-secrets';
import { PostgresHandoffCodes } from './postgres-handoff-codes';
import { PostgresLoginAttempts } from './postgres-login-attempts';
import { PostgresOidcArtifacts } from './postgres-oidc-artifacts';
import { PostgresPasskeyCredentials } from './postgres-passkey-credentials';
import { PostgresPasskeyEnrolmentLinks } from './postgres-passkey-enrolment-links';
import { PostgresPasskeySecondFactorChoices } from './postgres-passkey-second-factor-choices';
import { PostgresRevokedSessions } from './postgres-revoked-sessions';
import { PostgresSessionIndex } from './postgres-session-index';
import { PostgresSigningKeys } from './postgres-signing-keys';
import { PostgresUsedOAuthFlows } from './postgres-used-oauth-flows';
import { PostgresUsedTotpSteps } from './postgres-used-totp-steps';

export { PostgresDatabase } from './postgres-database';

/**
 * Every store in PostgreSQL (DATABASE_URL): shared by every replica, durable. This module and pg
 * load only when DATABASE_URL is set (ADR 0015). The database's change feed starts with the
 * database itself; the revocations hold readiness until they have loaded.
 */
export function postgresStores(pg: PostgresDatabase, { clock, registry }: Pick<StoreDeps, 'clock' | 'registry'>): StateStores {
  const now = (): number => clock.now();
  return {
    kind: 'postgres',
    usedTotpSteps: () => new PostgresUsedTotpSteps(pg, clock),
    loginAttempts: () => new PostgresLoginAttempts(pg, clock),
    revokedSessions: () => {
      const revoked = new PostgresRevokedSessions(pg, clock);
      // A replica that has not loaded the shared revocations yet refuses cookies (503): not ready until it has.
      registry.ready(revoked);
      return revoked;
    },
    usedOAuthFlows: () => new PostgresUsedOAuthFlows(pg, clock),
    sessionIndex: () => new PostgresSessionIndex(pg, clock),
    enrolledTotpSecrets: (sealer) => new PostgresEnrolledTotpSecrets(pg, sealer, now),
    passkeyCredentials: () => new PostgresPasskeyCredentials(pg),
    passkeyEnrolmentLinks: () => new PostgresPasskeyEnrolmentLinks(pg, clock),
    passkeySecondFactorChoices: () => new PostgresPasskeySecondFactorChoices(pg),
    handoffCodes: () => new PostgresHandoffCodes(pg, clock),
    oidcArtifacts: () => new PostgresOidcArtifacts(pg, clock),
    signingKeys: () => new PostgresSigningKeys(pg, clock),
    accessTokens: () => new PostgresAccessTokens(pg),
    logoutDeliveries: () => new PostgresLogoutDeliveries(pg),
    auditTrail: () => new PostgresAuditTrail(pg),
  };
}
