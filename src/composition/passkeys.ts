import type { PasskeyUseCases } from '../adapters/http/passkey-routes';
import { AesGcmPasskeyChallengeSealer } from '../adapters/crypto/aes-gcm-passkey-challenge-sealer';
import { HmacPasskeyEnrolmentLinks } from '../adapters/crypto/hmac-passkey-enrolment-links';
import { InMemoryPasskeyCredentials } from '../adapters/state/memory/in-memory-passkey-credentials';
import { InMemoryPasskeyEnrolmentLinks } from '../adapters/state/memory/in-memory-passkey-enrolment-links';
import { InMemoryPasskeySecondFactorChoices } from '../adapters/state/memory/in-memory-passkey-second-factor-choices';
import { SqlitePasskeyEnrolmentLinks } from '../adapters/state/sqlite/sqlite-passkey-enrolment-links';
import { SqlitePasskeySecondFactorChoices } from '../adapters/state/sqlite/sqlite-passkey-second-factor-choices';
import type { Clock } from '../application/ports/clock';
import type { PasskeySecondFactorChoices } from '../application/passkeys/passkey-second-factor-choices';
import { PasskeyOwners } from '../application/passkeys/passkey-owner';
import { PasskeySecondFactor } from '../application/passkeys/passkey-second-factor';
import { PasskeyAssertionCheck } from '../application/passkeys/passkey-assertion-check';
import { Reauthentication } from '../application/passkeys/reauthentication';
import { StartPasskeyReauthenticationUseCase } from '../application/passkeys/start-passkey-reauthentication';
import { ChoosePasskeySecondFactorUseCase } from '../application/passkeys/choose-passkey-second-factor';
import { FinishPasskeyEnrolmentUseCase } from '../application/passkeys/finish-passkey-enrolment';
import { StartPasskeyEnrolmentUseCase } from '../application/passkeys/start-passkey-enrolment';
import { SqlitePasskeyCredentials } from '../adapters/state/sqlite/sqlite-passkey-credentials';
import { lazyModule } from '../adapters/system/lazy-module';
import { SimpleWebAuthnPasskeyCeremonies } from '../adapters/webauthn/simplewebauthn-passkey-ceremonies';
import type { PasskeyCredentials } from '../application/passkeys/passkey-credentials';
import { ChangePasskeyUseCase } from '../application/passkeys/change-passkey';
import { FinishPasskeyLoginUseCase } from '../application/passkeys/finish-passkey-login';
import { FinishPasskeyRegistrationUseCase } from '../application/passkeys/finish-passkey-registration';
import { ListPasskeysUseCase } from '../application/passkeys/list-passkeys';
import { StartPasskeyLoginUseCase } from '../application/passkeys/start-passkey-login';
import { StartPasskeyRegistrationUseCase } from '../application/passkeys/start-passkey-registration';
import type { TypedContainer, Wiring } from './binding';
import type { Config } from './config';
import { protectedDomainOfAppUrl } from './cookie-domain';
import { bindDurable } from './durable-state';
import { TOKENS } from './tokens';

// @simplewebauthn/server (and its CBOR and ASN.1 parsers) loads with the first passkey request, not at start-up.
const simpleWebAuthn = lazyModule(() => require('@simplewebauthn/server') as typeof import('@simplewebauthn/server'));

/** Binds the passkey store like the other durable state: Redis, else PostgreSQL, else the embedded file, else memory. */
export function bindPasskeyCredentials(c: TypedContainer): void {
  bindDurable(c, TOKENS.PasskeyCredentials, [], () => ({
    redis: (redis, { RedisPasskeyCredentials }) => new RedisPasskeyCredentials(redis),
    postgres: (pg, { PostgresPasskeyCredentials }) => new PostgresPasskeyCredentials(pg),
    sqlite: (db) => new SqlitePasskeyCredentials(db),
    memory: () => new InMemoryPasskeyCredentials(),
  }));
  bindDurable(c, TOKENS.PasskeyEnrolmentLinks, [TOKENS.Config, TOKENS.Clock], (config: Config, clock: Clock) => ({
    redis: (redis, { RedisPasskeyEnrolmentLinks }) => new RedisPasskeyEnrolmentLinks(redis, clock),
    postgres: (pg, { PostgresPasskeyEnrolmentLinks }) => new PostgresPasskeyEnrolmentLinks(pg, clock),
    sqlite: (db) => new SqlitePasskeyEnrolmentLinks(db, clock),
    memory: () => new InMemoryPasskeyEnrolmentLinks(clock),
    // Issue 16. The links reach the store only as a keyed hash (SECRET), whichever store it is.
    wrap: (store) => new HmacPasskeyEnrolmentLinks(store, config.secret),
  }));
  bindDurable(c, TOKENS.PasskeySecondFactorChoices, [], () => ({
    redis: (redis, { RedisPasskeySecondFactorChoices }) => new RedisPasskeySecondFactorChoices(redis),
    postgres: (pg, { PostgresPasskeySecondFactorChoices }) => new PostgresPasskeySecondFactorChoices(pg),
    sqlite: (db) => new SqlitePasskeySecondFactorChoices(db),
    memory: () => new InMemoryPasskeySecondFactorChoices(),
  }));
  c.bind(
    TOKENS.PasskeySecondFactor,
    (config: Config, passkeys: PasskeyCredentials, choices: PasskeySecondFactorChoices) =>
      new PasskeySecondFactor(passkeys, choices, config.passkeySecondFactor),
    [TOKENS.Config, TOKENS.PasskeyCredentials, TOKENS.PasskeySecondFactorChoices],
  );
}

/**
 * The passkey use cases for the HTTP adapter, or undefined with PASSKEYS=off (no route then).
 * Relying-party id = the protected cookie domain (one passkey for every app under it); origin =
 * APP_URL's (ADR 0027).
 */
export function passkeyUseCases(config: Config, w: Wiring): PasskeyUseCases | undefined {
  if (!config.passkeys) return undefined;
  const domain = protectedDomainOfAppUrl(config.appUrl);
  const ceremonies = new SimpleWebAuthnPasskeyCeremonies(
    simpleWebAuthn,
    { id: domain.domain, name: config.appTitle, origin: new URL(config.appUrl).origin },
    config.secret,
  );
  const sealer = new AesGcmPasskeyChallengeSealer(config.secret);
  const passkeys = w.get(TOKENS.PasskeyCredentials);
  const authenticator = w.get(TOKENS.RequestAuthenticator);
  const users = w.get(TOKENS.UserStore);
  const clock = w.get(TOKENS.Clock);
  const ids = w.get(TOKENS.IdGenerator);
  const used = w.get(TOKENS.UsedOAuthFlows);
  const audit = w.get(TOKENS.AuditLog);
  const owners = new PasskeyOwners(authenticator, users);
  const assertions = new PasskeyAssertionCheck(passkeys, ceremonies, used, w.get(TOKENS.LoginGuard), clock, audit);
  const reauthentication = new Reauthentication(w.get(TOKENS.CredentialCheck), assertions, sealer, clock, audit);
  return {
    startPasskeyRegistration: new StartPasskeyRegistrationUseCase(owners, reauthentication, passkeys, ceremonies, sealer, ids, clock),
    finishPasskeyRegistration: new FinishPasskeyRegistrationUseCase(owners, passkeys, ceremonies, sealer, used, clock, audit),
    startPasskeyLogin: new StartPasskeyLoginUseCase(authenticator, passkeys, ceremonies, sealer, ids, clock),
    startPasskeyReauthentication: new StartPasskeyReauthenticationUseCase(owners, passkeys, ceremonies, sealer, ids, clock),
    finishPasskeyLogin: new FinishPasskeyLoginUseCase(
      users,
      sealer,
      assertions,
      authenticator,
      w.get(TOKENS.RevokedSessions),
      w.get(TOKENS.CredentialFingerprints),
      clock,
      w.get(TOKENS.SessionIssuer),
    ),
    listPasskeys: new ListPasskeysUseCase(owners, passkeys, w.get(TOKENS.PasskeySecondFactorChoices), w.get(TOKENS.PasskeySecondFactor)),
    choosePasskeySecondFactor: new ChoosePasskeySecondFactorUseCase(
      owners,
      reauthentication,
      passkeys,
      w.get(TOKENS.PasskeySecondFactorChoices),
      w.get(TOKENS.PasskeySecondFactor),
    ),
    changePasskey: new ChangePasskeyUseCase(owners, reauthentication, passkeys, audit),
    startPasskeyEnrolment: new StartPasskeyEnrolmentUseCase(users, w.get(TOKENS.PasskeyEnrolmentLinks), passkeys, ceremonies, sealer, ids, clock, audit),
    finishPasskeyEnrolment: new FinishPasskeyEnrolmentUseCase(
      users,
      passkeys,
      { ceremonies, sealer, used },
      w.get(TOKENS.CredentialFingerprints),
      clock,
      audit,
      w.get(TOKENS.SessionIssuer),
    ),
    clock,
  };
}
