import { SqliteAuditTrail } from './sqlite-audit-trail';
import type { StateStores, StoreDeps } from '../state-stores';
import { SqliteLogoutDeliveries } from './sqlite-logout-deliveries';
import type { SqliteDatabase } from './sqlite-database';
import { SqliteAccessTokens } from './sqlite-access-tokens';
import { SqliteEnrolledTotpSecrets } from './sqlite-enrolled-totp-secrets';
import { SqliteHandoffCodes } from './sqlite-handoff-codes';
import { SqliteLoginAttempts } from './sqlite-login-attempts';
import { SqliteOidcArtifacts } from './sqlite-oidc-artifacts';
import { SqlitePasskeyCredentials } from './sqlite-passkey-credentials';
import { SqlitePasskeyEnrolmentLinks } from './sqlite-passkey-enrolment-links';
import { SqlitePasskeySecondFactorChoices } from './sqlite-passkey-second-factor-choices';
import { SqliteRevokedSessions } from './sqlite-revoked-sessions';
import { SqliteSessionIndex } from './sqlite-session-index';
import { SqliteSigningKeys } from './sqlite-signing-keys';
import { SqliteUsedOAuthFlows } from './sqlite-used-oauth-flows';
import { SqliteUsedTotpSteps } from './sqlite-used-totp-steps';

/** Every store in the embedded database file (DATA_DIR): one process, kept across restarts. */
export function sqliteStores(db: SqliteDatabase, { clock }: Pick<StoreDeps, 'clock'>): StateStores {
  const now = (): number => clock.now();
  return {
    kind: 'sqlite',
    usedTotpSteps: () => new SqliteUsedTotpSteps(db, clock),
    loginAttempts: () => new SqliteLoginAttempts(db, clock),
    revokedSessions: () => new SqliteRevokedSessions(db, clock),
    usedOAuthFlows: () => new SqliteUsedOAuthFlows(db, clock),
    sessionIndex: () => new SqliteSessionIndex(db, clock),
    enrolledTotpSecrets: (sealer) => new SqliteEnrolledTotpSecrets(db, sealer, now),
    passkeyCredentials: () => new SqlitePasskeyCredentials(db),
    passkeyEnrolmentLinks: () => new SqlitePasskeyEnrolmentLinks(db, clock),
    passkeySecondFactorChoices: () => new SqlitePasskeySecondFactorChoices(db),
    handoffCodes: () => new SqliteHandoffCodes(db, clock),
    oidcArtifacts: () => new SqliteOidcArtifacts(db, clock),
    signingKeys: () => new SqliteSigningKeys(db, clock),
    accessTokens: () => new SqliteAccessTokens(db),
    logoutDeliveries: () => new SqliteLogoutDeliveries(db),
    auditTrail: () => new SqliteAuditTrail(db),
  };
}
