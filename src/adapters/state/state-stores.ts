import type { AccessTokens } from '../../application/tokens/access-tokens';
import type { Clock } from '../../application/ports/clock';
import type { ReadinessCheck } from '../../application/readiness/readiness-check';
import type { RevokedSessions } from '../../application/ports/revoked-sessions';
import type { SessionIndex } from '../../application/ports/session-index';
import type { UsedOAuthFlows } from '../../application/ports/used-oauth-flows';
import type { UsedTotpSteps } from '../../application/ports/used-totp-steps';
import type { HandoffCodes } from '../../application/handoff/handoff-codes';
import type { LogoutDeliveries } from '../../application/oidc/logout-deliveries';
import type { OidcArtifacts } from '../../application/oidc/oidc-artifacts';
import type { SigningKeys } from '../../application/oidc/signing-keys';
import type { PasskeyCredentials } from '../../application/passkeys/passkey-credentials';
import type { PasskeyEnrolmentLinks } from '../../application/passkeys/passkey-enrolment-links';
import type { PasskeySecondFactorChoices } from '../../application/passkeys/passkey-second-factor-choices';
import type { LoginAttempts } from '../../application/password/login-attempts';
import type { EnrolledTotpSecrets } from '../../application/totp/enrolled-totp-secrets';
import type { TotpSecretSealer } from '../../application/totp/totp-secret-sealer';
import type { AuditTrail } from '../../application/ports/audit-trail';
import type { Logger } from '../system/logger';

/** Which backend a bundle keeps its state in. */
export type StoreKind = 'redis' | 'postgres' | 'sqlite' | 'memory';

/**
 * Where a store registers what the gateway must do for it, when the store is built: start a
 * feed at `gateway.start()` (factories only construct), and hold readiness until it has loaded.
 * The gateway then starts and probes what registered, never asking which class a store is.
 */
export interface StoreRegistry {
  onStart(start: () => void): void;
  ready(check: ReadinessCheck): void;
}

/** What every backend's stores are built with. */
export interface StoreDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly registry: StoreRegistry;
}

/**
 * Every state store of one backend. Each method builds a new store (composition calls each once,
 * for the one binding of its port); a backend's own connection is shared by all of them. The
 * keyed hashes and seals that keep secrets out of every store are laid over these by composition.
 */
export interface StateStores {
  readonly kind: StoreKind;
  usedTotpSteps(): UsedTotpSteps;
  loginAttempts(): LoginAttempts;
  revokedSessions(): RevokedSessions;
  usedOAuthFlows(): UsedOAuthFlows;
  sessionIndex(): SessionIndex;
  enrolledTotpSecrets(sealer: TotpSecretSealer): EnrolledTotpSecrets;
  passkeyCredentials(): PasskeyCredentials;
  passkeyEnrolmentLinks(): PasskeyEnrolmentLinks;
  passkeySecondFactorChoices(): PasskeySecondFactorChoices;
  handoffCodes(): HandoffCodes;
  oidcArtifacts(): OidcArtifacts;
  signingKeys(): SigningKeys;
  accessTokens(): AccessTokens;
  logoutDeliveries(): LogoutDeliveries;
  auditTrail(): AuditTrail;
}
