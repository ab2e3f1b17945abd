import { OtplibTotpVerifier } from '../adapters/crypto/otplib-totp-verifier';
import type { TotpVerifier } from '../application/ports/totp-verifier';
import { CredentialCheck } from '../application/password/credential-check';
import { LoginUseCase } from '../application/password/login';
import { LoginGuard } from '../application/password/login-guard';
import type { TypedContainer } from './binding';
import { optionalModules } from './optional-modules';
import { bindStore } from './state';
import { TOKENS } from './tokens';

/**
 * The one credential check (password, TOTP code, lock counting) and the password login. The
 * guesses and used TOTP steps are short-lived state: Redis, else PostgreSQL, else the file, else memory.
 */
export function bindPassword(c: TypedContainer): void {
  c.bind(TOKENS.TotpVerifier, (): TotpVerifier => new OtplibTotpVerifier(optionalModules.otplib));
  bindStore(c, TOKENS.UsedTotpSteps, 'short-lived', (s) => s.usedTotpSteps());
  bindStore(c, TOKENS.LoginAttempts, 'short-lived', (s) => s.loginAttempts());
  c.bindClass(TOKENS.LoginGuard, LoginGuard, [TOKENS.LoginAttempts, TOKENS.Clock, TOKENS.Settings, TOKENS.AuditLog]);
  // Issue 16: HTTP Basic is refused for an account that owes a passkey after its password, as for a TOTP account.
  c.bindClass(TOKENS.CredentialCheck, CredentialCheck, [
    TOKENS.UserStore,
    TOKENS.LoginGuard,
    TOKENS.TotpVerifier,
    TOKENS.UsedTotpSteps,
    TOKENS.AuditLog,
    TOKENS.CredentialFingerprints,
    TOKENS.PasskeySecondFactorIfOn,
  ]);
  // PASSKEY_SECOND_FACTOR, or the account's own choice (issue 16): an account holding a passkey owes it after its password.
  c.bindClass(TOKENS.LoginUseCase, LoginUseCase, [TOKENS.CredentialCheck, TOKENS.SessionIssuer, TOKENS.PasskeySecondFactorIfOn]);
}
