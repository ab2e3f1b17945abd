import type { TotpEnrolmentUseCases } from '../adapters/http/totp-enrolment-routes';
import { AesGcmTotpSecretSealer } from '../adapters/crypto/aes-gcm-totp-secret-sealer';
import { OtplibTotpSecretIssuer } from '../adapters/crypto/otplib-totp-secret-issuer';
import { InMemoryEnrolledTotpSecrets } from '../adapters/state/memory/in-memory-enrolled-totp-secrets';
import { SqliteEnrolledTotpSecrets } from '../adapters/state/sqlite/sqlite-enrolled-totp-secrets';
import type { Logger } from '../adapters/system/logger';
import type { Clock } from '../application/ports/clock';
import type { EnrolledTotpSecrets } from '../application/totp/enrolled-totp-secrets';
import type { TotpSecretSealer } from '../application/totp/totp-secret-sealer';
import type { UserStore } from '../application/ports/user-store';
import { EnrolledTotpUserStore } from '../application/totp/enrolled-totp-user-store';
import { SecondFactorSessions } from '../application/totp/second-factor-sessions';
import { ConfirmTotpEnrolmentUseCase } from '../application/totp/confirm-totp-enrolment';
import { GetTotpEnrolmentUseCase } from '../application/totp/get-totp-enrolment';
import { RemoveTotpEnrolmentUseCase } from '../application/totp/remove-totp-enrolment';
import { StartTotpEnrolmentUseCase } from '../application/totp/start-totp-enrolment';
import type { TypedContainer, Wiring } from './binding';
import type { Config } from './config';
import { bindDurable } from './durable-state';
import { optionalModules } from './optional-modules';
import type { Resources } from './resources';
import { TOKENS } from './tokens';

/**
 * Self-enrolled TOTP (issue 16, ADR 0031): the secrets' store like the other durable state
 * (PostgreSQL, else Redis, else the embedded file, else memory), and the user store everything
 * else reads: the configured stores with those secrets laid over accounts that have none of their own.
 */
export function bindTotpEnrolment(c: TypedContainer): void {
  c.bind(TOKENS.TotpSecretSealer, (config: Config): TotpSecretSealer => new AesGcmTotpSecretSealer(config.secret), [TOKENS.Config]);
  // Like the revocations, whose replication this mirrors: PostgreSQL whenever it is configured.
  bindDurable(
    c,
    TOKENS.EnrolledTotpSecrets,
    [TOKENS.TotpSecretSealer, TOKENS.Clock, TOKENS.Logger, TOKENS.Resources],
    (sealer: TotpSecretSealer, clock: Clock, logger: Logger, resources: Resources) => {
      const now = () => clock.now();
      return {
        redis: (redis, { RedisEnrolledTotpSecrets }) => {
          const shared = new RedisEnrolledTotpSecrets(redis, sealer, logger);
          resources.onStart(() => shared.start());
          return shared;
        },
        postgres: (pg, { PostgresEnrolledTotpSecrets }) => new PostgresEnrolledTotpSecrets(pg, sealer, now),
        sqlite: (db) => new SqliteEnrolledTotpSecrets(db, sealer, now),
        memory: () => new InMemoryEnrolledTotpSecrets(),
      };
    },
    'records',
  );
  c.bind(TOKENS.UserStore, (store: UserStore, enrolled: EnrolledTotpSecrets): UserStore => new EnrolledTotpUserStore(store, enrolled), [
    TOKENS.StoreUsers,
    TOKENS.EnrolledTotpSecrets,
  ]);
}

/** The account page's TOTP use cases for the HTTP adapter. */
export function totpEnrolmentUseCases(config: Config, w: Wiring): TotpEnrolmentUseCases {
  const authenticator = w.get(TOKENS.RequestAuthenticator);
  const storeUsers = w.get(TOKENS.StoreUsers);
  const enrolled = w.get(TOKENS.EnrolledTotpSecrets);
  const sealer = w.get(TOKENS.TotpSecretSealer);
  const clock = w.get(TOKENS.Clock);
  const audit = w.get(TOKENS.AuditLog);
  const sessions = new SecondFactorSessions(
    w.get(TOKENS.SessionIndex),
    w.get(TOKENS.RevokedSessions),
    w.get(TOKENS.CredentialFingerprints),
    w.get(TOKENS.SessionIssuer),
  );
  return {
    getTotpEnrolment: new GetTotpEnrolmentUseCase(authenticator, storeUsers, enrolled),
    startTotpEnrolment: new StartTotpEnrolmentUseCase(
      authenticator,
      storeUsers,
      enrolled,
      new OtplibTotpSecretIssuer(optionalModules.otplib),
      sealer,
      clock,
      config.appTitle,
    ),
    confirmTotpEnrolment: new ConfirmTotpEnrolmentUseCase(
      authenticator,
      storeUsers,
      enrolled,
      sealer,
      { credentials: w.get(TOKENS.CredentialCheck), totp: w.get(TOKENS.TotpVerifier), usedSteps: w.get(TOKENS.UsedTotpSteps) },
      sessions,
      clock,
      audit,
    ),
    removeTotpEnrolment: new RemoveTotpEnrolmentUseCase(authenticator, storeUsers, enrolled, w.get(TOKENS.CredentialCheck), sessions, clock, audit),
    qrcode: optionalModules.qrcode,
  };
}
