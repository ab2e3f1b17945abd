import { InMemoryAuditTrail } from './in-memory-audit-trail';
import type { StateStores, StoreDeps } from '../state-stores';
import { InMemoryLogoutDeliveries } from './in-memory-logout-deliveries';
import { InMemoryAccessTokens } from './in-memory-access-tokens';
import { InMemoryEnrolledTotpSecrets } from './in-memory-enrolled-totp-secrets';
import { InMemoryHandoffCodes } from './in-memory-handoff-codes';
import { InMemoryLoginAttempts } from './in-memory-login-attempts';
import { InMemoryOidcArtifacts } from './in-memory-oidc-artifacts';
import { InMemoryPasskeyCredentials } from './in-memory-passkey-credentials';
import { InMemoryPasskeyEnrolmentLinks } from './in-memory-passkey-enrolment-links';
import { InMemoryPasskeySecondFactorChoices } from './in-memory-passkey-second-factor-choices';
import { InMemoryRevokedSessions } from './in-memory-revoked-sessions';
import { InMemorySessionIndex } from './in-memory-session-index';
import { InMemorySigningKeys } from './in-memory-signing-keys';
import { InMemoryUsedOAuthFlows } from './in-memory-used-oauth-flows';
import { InMemoryUsedTotpSteps } from './in-memory-used-totp-steps';

/** Every store in this process's memory: lost at restart, not shared with other replicas. */
export function memoryStores({ clock }: Pick<StoreDeps, 'clock'>): StateStores {
  return {
    kind: 'memory',
    usedTotpSteps: () => new InMemoryUsedTotpSteps(clock),
    loginAttempts: () => new InMemoryLoginAttempts(),
    revokedSessions: () => new InMemoryRevokedSessions(clock),
    usedOAuthFlows: () => new InMemoryUsedOAuthFlows(clock),
    sessionIndex: () => new InMemorySessionIndex(clock),
    enrolledTotpSecrets: () => new InMemoryEnrolledTotpSecrets(),
    passkeyCredentials: () => new InMemoryPasskeyCredentials(),
    passkeyEnrolmentLinks: () => new InMemoryPasskeyEnrolmentLinks(clock),
    passkeySecondFactorChoices: () => new InMemoryPasskeySecondFactorChoices(),
    handoffCodes: () => new InMemoryHandoffCodes(clock),
    oidcArtifacts: () => new InMemoryOidcArtifacts(clock),
    signingKeys: () => new InMemorySigningKeys(),
    accessTokens: () => new InMemoryAccessTokens(),
    logoutDeliveries: () => new InMemoryLogoutDeliveries(),
    auditTrail: () => new InMemoryAuditTrail(),
  };
}
