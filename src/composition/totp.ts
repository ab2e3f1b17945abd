import { AesGcmTotpSecretSealer } from '../adapters/crypto/aes-gcm-totp-secret-sealer';
import { OtplibTotpSecretIssuer } from '../adapters/crypto/otplib-totp-secret-issuer';
import type { UserStore } from '../application/ports/user-store';
import type { EnrolledTotpSecrets } from '../application/totp/enrolled-totp-secrets';
import type { TotpSecretIssuer } from '../application/totp/totp-secret-issuer';
import type { TotpSecretSealer } from '../application/totp/totp-secret-sealer';
import { EnrolledTotpUserStore } from '../application/totp/enrolled-totp-user-store';
import { SecondFactorSessions } from '../application/totp/second-factor-sessions';
import { ConfirmTotpEnrolmentUseCase } from '../application/totp/confirm-totp-enrolment';
import { GetTotpEnrolmentUseCase } from '../application/totp/get-totp-enrolment';
import { RemoveTotpEnrolmentUseCase } from '../application/totp/remove-totp-enrolment';
import { StartTotpEnrolmentUseCase } from '../application/totp/start-totp-enrolment';
import { VerifyTotpUseCase } from '../application/totp/verify-totp';
import type { TypedContainer } from './binding';
import type { Config } from '../config/load';
import { optionalModules } from './optional-modules';
import { TOKENS } from './tokens';

/**
 * TOTP: the second step of a login, and codes people set up themselves (issue 16, ADR 0031),
 * whose secrets are durable records (PostgreSQL whenever it is configured) sealed with SECRET,
 * laid over the configured user stores for accounts that have none of their own.
 */
export function bindTotp(c: TypedContainer, config: Pick<Config, 'secret' | 'appTitle'>): void {
  c.bind(TOKENS.TotpSecretSealer, (): TotpSecretSealer => new AesGcmTotpSecretSealer(config.secret));
  c.bind(TOKENS.TotpSecretIssuer, (): TotpSecretIssuer => new OtplibTotpSecretIssuer(optionalModules.otplib));
  c.bind(TOKENS.EnrolledTotpSecrets, (records, sealer): EnrolledTotpSecrets => records.enrolledTotpSecrets(sealer), [
    TOKENS.RecordStores,
    TOKENS.TotpSecretSealer,
  ]);
  c.bind(TOKENS.UserStore, (store: UserStore, enrolled: EnrolledTotpSecrets): UserStore => new EnrolledTotpUserStore(store, enrolled), [
    TOKENS.StoreUsers,
    TOKENS.EnrolledTotpSecrets,
  ]);
  c.bindClass(TOKENS.VerifyTotpUseCase, VerifyTotpUseCase, [
    TOKENS.RevokedSessions,
    TOKENS.RequestAuthenticator,
    TOKENS.CredentialCheck,
    TOKENS.Clock,
    TOKENS.SessionIssuer,
  ]);
  c.bindClass(TOKENS.SecondFactorSessions, SecondFactorSessions, [
    TOKENS.SessionIndex,
    TOKENS.RevokedSessions,
    TOKENS.CredentialFingerprints,
    TOKENS.SessionIssuer,
  ]);
  c.bindClass(TOKENS.GetTotpEnrolmentUseCase, GetTotpEnrolmentUseCase, [TOKENS.RequestAuthenticator, TOKENS.StoreUsers, TOKENS.EnrolledTotpSecrets]);
  c.bind(
    TOKENS.StartTotpEnrolmentUseCase,
    (...d: ConstructorParameters<typeof StartTotpEnrolmentUseCase> extends [...infer D, string] ? D : never) =>
      // The issuer name authenticator apps show beside the account.
      new StartTotpEnrolmentUseCase(...d, config.appTitle),
    [TOKENS.RequestAuthenticator, TOKENS.StoreUsers, TOKENS.EnrolledTotpSecrets, TOKENS.TotpSecretIssuer, TOKENS.TotpSecretSealer, TOKENS.Clock],
  );
  c.bind(TOKENS.TotpEnrolmentProofs, (...[credentials, totp, usedSteps]) => ({ credentials, totp, usedSteps }), [
    TOKENS.CredentialCheck,
    TOKENS.TotpVerifier,
    TOKENS.UsedTotpSteps,
  ]);
  c.bindClass(TOKENS.ConfirmTotpEnrolmentUseCase, ConfirmTotpEnrolmentUseCase, [
    TOKENS.RequestAuthenticator,
    TOKENS.StoreUsers,
    TOKENS.EnrolledTotpSecrets,
    TOKENS.TotpSecretSealer,
    TOKENS.TotpEnrolmentProofs,
    TOKENS.SecondFactorSessions,
    TOKENS.Clock,
    TOKENS.AuditLog,
  ]);
  c.bindClass(TOKENS.RemoveTotpEnrolmentUseCase, RemoveTotpEnrolmentUseCase, [
    TOKENS.RequestAuthenticator,
    TOKENS.StoreUsers,
    TOKENS.EnrolledTotpSecrets,
    TOKENS.CredentialCheck,
    TOKENS.SecondFactorSessions,
    TOKENS.Clock,
    TOKENS.AuditLog,
  ]);
}
