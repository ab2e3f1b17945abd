import { hasTotp } from '../../domain/account';
import { err, ok, type Result } from '../../domain/result';
import type { Session } from '../../domain/session';
import { enrolmentContext, readEnrolment } from '../../domain/totp-enrolment';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { EnrolledTotpSecrets } from './enrolled-totp-secrets';
import type { TotpSecretSealer } from './totp-secret-sealer';
import type { TotpVerifier } from '../ports/totp-verifier';
import type { UsedTotpSteps } from '../ports/used-totp-steps';
import type { UserStore } from '../ports/user-store';
import { PasskeyOwners } from '../passkeys/passkey-owner';
import type { CredentialCheck } from '../password/credential-check';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import type { SecondFactorSessions } from './second-factor-sessions';

export interface ConfirmTotpEnrolmentInput {
  readonly sessionToken?: string;
  /** The token {@link StartTotpEnrolmentUseCase} returned. */
  readonly enrolment: string;
  /** The first code the authenticator app shows for the new secret. */
  readonly code: string;
  /** The account's password, asked again: a session alone must not be able to lock its owner out. */
  readonly password: string;
  readonly ip: string;
  readonly requestId?: string;
  readonly userAgent?: string;
}

export interface ConfirmTotpEnrolmentOutput {
  /** The caller's new session, second-factor verified; every other session of the account ended. */
  readonly session: Session;
  readonly token: string;
  /** How many sessions ended (the caller's old one included). */
  readonly ended: number;
}

export type ConfirmTotpEnrolmentError =
  | { readonly code: 'not_logged_in' }
  | { readonly code: 'totp_set_by_administrator' }
  | { readonly code: 'totp_already_enrolled' }
  /** Not a token of this account and session, tampered with, or older than ten minutes: start again. */
  | { readonly code: 'enrolment_invalid' }
  /** The password is wrong (counted like a failed login). */
  | { readonly code: 'invalid_credentials' }
  | { readonly code: 'account_locked'; readonly retryAfter: number }
  | { readonly code: 'invalid_code' }
  | { readonly code: 'totp_replayed' }
  | { readonly code: 'store_unavailable' };

/** What confirming a set-up checks: the account's password, the first code, and that the code is spent. */
export interface TotpEnrolmentProofs {
  readonly credentials: CredentialCheck;
  readonly totp: TotpVerifier;
  readonly usedSteps: UsedTotpSteps;
}

/**
 * Finishes setting up a TOTP code: the account's password (asked again, and counted like a login:
 * a cookie taken from the person must not be enough to set a code only the taker has, which would
 * sign the owner out everywhere and lock them out) and a valid first code for the sealed secret
 * store it (encrypted) as the account's second factor. From then on the account is a TOTP account everywhere (login,
 * HTTP Basic, the OIDC login, sessions). Its other sessions end; the caller's is re-issued as
 * second-factor verified (ADR 0031).
 */
export class ConfirmTotpEnrolmentUseCase {
  private readonly owners: PasskeyOwners;

  constructor(
    authenticator: RequestAuthenticator,
    /** The configured user stores as they are, without self-enrolled secrets. */
    storeUsers: UserStore,
    private readonly enrolled: EnrolledTotpSecrets,
    private readonly sealer: TotpSecretSealer,
    private readonly proofs: TotpEnrolmentProofs,
    private readonly sessions: SecondFactorSessions,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {
    this.owners = new PasskeyOwners(authenticator, storeUsers);
  }

  async execute(input: ConfirmTotpEnrolmentInput): Promise<Result<ConfirmTotpEnrolmentOutput, ConfirmTotpEnrolmentError>> {
    return this.owners.forOwner(input, async ({ account, session }) => {
      if (hasTotp(account)) return err({ code: 'totp_set_by_administrator' });
      if (this.enrolled.secretOf(account.username) !== null) return err({ code: 'totp_already_enrolled' });
      const now = this.clock.now();
      const secret = readEnrolment(this.sealer.open(enrolmentContext(account.username, session.id), input.enrolment), now);
      if (secret === null) return err({ code: 'enrolment_invalid' });
      const proven = await this.proofs.credentials.password({ login: account.username, password: input.password, ip: input.ip, requestId: input.requestId });
      if (!proven.ok) return err(proven.error);
      if (proven.value.account.username !== account.username) return err({ code: 'invalid_credentials' });
      const step = await this.proofs.totp.verify(secret, input.code, now);
      if (step === null) return err({ code: 'invalid_code' });
      // The confirming code is spent: seen over a shoulder, it must not open the next login too.
      if (!(await this.proofs.usedSteps.claim(account.username, step, now + 3 * 30_000))) return err({ code: 'totp_replayed' });
      if (!(await this.enrolled.enrol(account.username, secret))) return err({ code: 'totp_already_enrolled' });
      const reissued = await this.sessions.reissue(session, { ...account, totpSecret: secret }, true, 'totp', input);
      this.audit.record({ event: 'totp_enrolled', username: account.username, ip: input.ip, requestId: input.requestId });
      return ok(reissued);
    });
  }
}
