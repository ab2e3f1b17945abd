import type { PasskeyUseCases } from '../adapters/http/passkey-routes';
import { AesGcmPasskeyChallengeSealer } from '../adapters/crypto/aes-gcm-passkey-challenge-sealer';
import { HmacPasskeyEnrolmentLinks } from '../adapters/crypto/hmac-one-time-links';
import { lazyModule } from '../adapters/system/lazy-module';
import { SimpleWebAuthnPasskeyCeremonies } from '../adapters/webauthn/simplewebauthn-passkey-ceremonies';
import type { PasskeyCeremonies } from '../application/passkeys/passkey-ceremonies';
import type { PasskeyChallengeSealer } from '../application/passkeys/passkey-challenge-sealer';
import type { PasskeyCredentials } from '../application/passkeys/passkey-credentials';
import type { PasskeySecondFactorChoices } from '../application/passkeys/passkey-second-factor-choices';
import { PasskeyAssertionCheck } from '../application/passkeys/passkey-assertion-check';
import { PasskeyOwners } from '../application/passkeys/passkey-owner';
import { PasskeySecondFactor } from '../application/passkeys/passkey-second-factor';
import { Reauthentication } from '../application/passkeys/reauthentication';
import { ChangePasskeyUseCase } from '../application/passkeys/change-passkey';
import { ChoosePasskeySecondFactorUseCase } from '../application/passkeys/choose-passkey-second-factor';
import { FinishPasskeyEnrolmentUseCase } from '../application/passkeys/finish-passkey-enrolment';
import { FinishPasskeyLoginUseCase } from '../application/passkeys/finish-passkey-login';
import { FinishPasskeyRegistrationUseCase } from '../application/passkeys/finish-passkey-registration';
import { ListPasskeysUseCase } from '../application/passkeys/list-passkeys';
import { StartPasskeyEnrolmentUseCase } from '../application/passkeys/start-passkey-enrolment';
import { StartPasskeyLoginUseCase } from '../application/passkeys/start-passkey-login';
import { StartPasskeyReauthenticationUseCase } from '../application/passkeys/start-passkey-reauthentication';
import { StartPasskeyRegistrationUseCase } from '../application/passkeys/start-passkey-registration';
import type { TypedContainer, Wiring } from './binding';
import type { Config } from '../config/load';
import { protectedDomainOfAppUrl } from './cookie-domain';
import { bindStore } from './state';
import { TOKENS } from './tokens';

// @simplewebauthn/server (and its CBOR and ASN.1 parsers) loads with the first passkey request, not at start-up.
const simpleWebAuthn = lazyModule(() => require('@simplewebauthn/server') as typeof import('@simplewebauthn/server'));

export type PasskeysConfig = Pick<Config, 'passkeys' | 'passkeySecondFactor' | 'appUrl' | 'appTitle' | 'secret'>;

/**
 * Passkeys (issue 16, ADR 0027): their stores (short-lived order: Redis, else PostgreSQL, else the
 * file, else memory; the first-passkey links behind a keyed hash), the ceremonies and every
 * passkey use case. Relying-party id = the protected cookie domain (one passkey for every app
 * under it); origin = APP_URL's. The use cases are resolved only with PASSKEYS on.
 */
export function bindPasskeys(c: TypedContainer, config: PasskeysConfig): void {
  bindStore(c, TOKENS.PasskeyCredentials, 'short-lived', (s) => s.passkeyCredentials());
  c.bind(TOKENS.PasskeyCredentialsIfOn, (passkeys: PasskeyCredentials) => (config.passkeys ? passkeys : null), [TOKENS.PasskeyCredentials]);
  // The links reach the store only as a keyed hash (SECRET), whichever store it is.
  bindStore(c, TOKENS.PasskeyEnrolmentLinks, 'short-lived', (s) => new HmacPasskeyEnrolmentLinks(s.passkeyEnrolmentLinks(), config.secret));
  bindStore(c, TOKENS.PasskeySecondFactorChoices, 'short-lived', (s) => s.passkeySecondFactorChoices());
  c.bind(
    TOKENS.PasskeySecondFactor,
    (passkeys: PasskeyCredentials, choices: PasskeySecondFactorChoices) => new PasskeySecondFactor(passkeys, choices, config.passkeySecondFactor),
    [TOKENS.PasskeyCredentials, TOKENS.PasskeySecondFactorChoices],
  );
  c.bind(TOKENS.PasskeySecondFactorIfOn, (second: PasskeySecondFactor) => (config.passkeys ? second : null), [TOKENS.PasskeySecondFactor]);
  c.bind(TOKENS.PasskeyCeremonies, (): PasskeyCeremonies => {
    const domain = protectedDomainOfAppUrl(config.appUrl);
    return new SimpleWebAuthnPasskeyCeremonies(
      simpleWebAuthn,
      { id: domain.domain, name: config.appTitle, origin: new URL(config.appUrl).origin },
      config.secret,
    );
  });
  c.bind(TOKENS.PasskeyChallengeSealer, (): PasskeyChallengeSealer => new AesGcmPasskeyChallengeSealer(config.secret));
  bindPasskeyServices(c);
  bindPasskeyUseCases(c);
}

function bindPasskeyServices(c: TypedContainer): void {
  c.bindClass(TOKENS.PasskeyOwners, PasskeyOwners, [TOKENS.RequestAuthenticator, TOKENS.UserStore]);
  c.bindClass(TOKENS.PasskeyAssertionCheck, PasskeyAssertionCheck, [
    TOKENS.PasskeyCredentials,
    TOKENS.PasskeyCeremonies,
    TOKENS.UsedOAuthFlows,
    TOKENS.LoginGuard,
    TOKENS.Clock,
    TOKENS.AuditLog,
  ]);
  c.bindClass(TOKENS.Reauthentication, Reauthentication, [
    TOKENS.CredentialCheck,
    TOKENS.PasskeyAssertionCheck,
    TOKENS.PasskeyChallengeSealer,
    TOKENS.Clock,
    TOKENS.AuditLog,
  ]);
}

function bindPasskeyUseCases(c: TypedContainer): void {
  const { PasskeyOwners: owners, PasskeyCredentials: passkeys, PasskeyCeremonies: ceremonies, PasskeyChallengeSealer: sealer } = TOKENS;
  const { IdGenerator: ids, Clock: clock, AuditLog: audit, UsedOAuthFlows: used, Reauthentication: reauthentication } = TOKENS;
  c.bindClass(TOKENS.StartPasskeyRegistrationUseCase, StartPasskeyRegistrationUseCase, [owners, reauthentication, passkeys, ceremonies, sealer, ids, clock]);
  c.bindClass(TOKENS.FinishPasskeyRegistrationUseCase, FinishPasskeyRegistrationUseCase, [owners, passkeys, ceremonies, sealer, used, clock, audit]);
  c.bindClass(TOKENS.StartPasskeyLoginUseCase, StartPasskeyLoginUseCase, [TOKENS.RequestAuthenticator, passkeys, ceremonies, sealer, ids, clock]);
  c.bindClass(TOKENS.StartPasskeyReauthenticationUseCase, StartPasskeyReauthenticationUseCase, [owners, passkeys, ceremonies, sealer, ids, clock]);
  c.bindClass(TOKENS.FinishPasskeyLoginUseCase, FinishPasskeyLoginUseCase, [
    TOKENS.UserStore,
    sealer,
    TOKENS.PasskeyAssertionCheck,
    TOKENS.RequestAuthenticator,
    TOKENS.RevokedSessions,
    TOKENS.CredentialFingerprints,
    clock,
    TOKENS.SessionIssuer,
  ]);
  c.bindClass(TOKENS.ListPasskeysUseCase, ListPasskeysUseCase, [owners, passkeys, TOKENS.PasskeySecondFactorChoices, TOKENS.PasskeySecondFactor]);
  c.bindClass(TOKENS.ChoosePasskeySecondFactorUseCase, ChoosePasskeySecondFactorUseCase, [
    owners,
    reauthentication,
    passkeys,
    TOKENS.PasskeySecondFactorChoices,
    TOKENS.PasskeySecondFactor,
  ]);
  c.bindClass(TOKENS.ChangePasskeyUseCase, ChangePasskeyUseCase, [owners, reauthentication, passkeys, audit]);
  c.bindClass(TOKENS.StartPasskeyEnrolmentUseCase, StartPasskeyEnrolmentUseCase, [
    TOKENS.UserStore,
    TOKENS.PasskeyEnrolmentLinks,
    passkeys,
    ceremonies,
    sealer,
    ids,
    clock,
    audit,
  ]);
  c.bind(TOKENS.PasskeyEnrolmentCeremony, (...[ceremonies, sealer, used]) => ({ ceremonies, sealer, used }), [ceremonies, sealer, used]);
  c.bindClass(TOKENS.FinishPasskeyEnrolmentUseCase, FinishPasskeyEnrolmentUseCase, [
    TOKENS.UserStore,
    passkeys,
    TOKENS.PasskeyEnrolmentCeremony,
    TOKENS.CredentialFingerprints,
    clock,
    audit,
    TOKENS.SessionIssuer,
  ]);
}

/** The passkey use cases for the HTTP adapter, or undefined with PASSKEYS off (no route then). */
export function passkeyUseCases(config: Pick<Config, 'passkeys'>, w: Wiring): PasskeyUseCases | undefined {
  if (!config.passkeys) return undefined;
  return {
    startPasskeyRegistration: w.get(TOKENS.StartPasskeyRegistrationUseCase),
    finishPasskeyRegistration: w.get(TOKENS.FinishPasskeyRegistrationUseCase),
    startPasskeyLogin: w.get(TOKENS.StartPasskeyLoginUseCase),
    startPasskeyReauthentication: w.get(TOKENS.StartPasskeyReauthenticationUseCase),
    finishPasskeyLogin: w.get(TOKENS.FinishPasskeyLoginUseCase),
    listPasskeys: w.get(TOKENS.ListPasskeysUseCase),
    choosePasskeySecondFactor: w.get(TOKENS.ChoosePasskeySecondFactorUseCase),
    changePasskey: w.get(TOKENS.ChangePasskeyUseCase),
    startPasskeyEnrolment: w.get(TOKENS.StartPasskeyEnrolmentUseCase),
    finishPasskeyEnrolment: w.get(TOKENS.FinishPasskeyEnrolmentUseCase),
    clock: w.get(TOKENS.Clock),
  };
}
