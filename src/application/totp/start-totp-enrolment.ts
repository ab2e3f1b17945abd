import { hasTotp } from '../../domain/account';
import { err, ok, type Result } from '../../domain/result';
import { TOTP_ENROLMENT_LIFETIME_MS, enrolmentContext } from '../../domain/totp-enrolment';
import type { Clock } from '../ports/clock';
import type { EnrolledTotpSecrets } from './enrolled-totp-secrets';
import type { TotpSecretIssuer } from './totp-secret-issuer';
import type { TotpSecretSealer } from './totp-secret-sealer';
import type { UserStore } from '../ports/user-store';
import { PasskeyOwners } from '../passkeys/passkey-owner';
import type { RequestAuthenticator } from '../sessions/request-authenticator';

export interface StartTotpEnrolmentInput {
  readonly sessionToken?: string;
  readonly ip: string;
  readonly requestId?: string;
}

export interface StartTotpEnrolmentOutput {
  /** The new base32 secret, shown to its owner once (as text and as a QR code of `uri`). */
  readonly secret: string;
  readonly uri: string;
  /** The secret sealed for this session, handed back with the first code (nothing is stored before that). */
  readonly enrolment: string;
  readonly expiresAt: number;
}

export type StartTotpEnrolmentError =
  | { readonly code: 'not_logged_in' }
  | { readonly code: 'totp_set_by_administrator' }
  /** A passkey-only account: the set-up is confirmed with a password it does not have. */
  | { readonly code: 'totp_needs_password' }
  | { readonly code: 'totp_already_enrolled' }
  | { readonly code: 'store_unavailable' };

/**
 * Starts setting up a TOTP code: a new secret for the logged-in person's account, stored nowhere
 * yet. It travels sealed (for this account and this session, for ten minutes) to the page and
 * back with the first code, so a secret no authenticator app ever showed a code for is never
 * required at a login.
 */
export class StartTotpEnrolmentUseCase {
  private readonly owners: PasskeyOwners;

  constructor(
    authenticator: RequestAuthenticator,
    /** The configured user stores as they are, without self-enrolled secrets. */
    storeUsers: UserStore,
    private readonly enrolled: EnrolledTotpSecrets,
    private readonly issuer: TotpSecretIssuer,
    private readonly sealer: TotpSecretSealer,
    private readonly clock: Clock,
    /** The issuer name authenticator apps show (APP_TITLE). */
    private readonly title: string,
  ) {
    this.owners = new PasskeyOwners(authenticator, storeUsers);
  }

  async execute(input: StartTotpEnrolmentInput): Promise<Result<StartTotpEnrolmentOutput, StartTotpEnrolmentError>> {
    return this.owners.forOwner(input, async ({ account, session }) => {
      if (hasTotp(account)) return err({ code: 'totp_set_by_administrator' });
      if (account.passkeyOnly === true) return err({ code: 'totp_needs_password' });
      if (this.enrolled.secretOf(account.username) !== null) return err({ code: 'totp_already_enrolled' });
      const secret = this.issuer.newSecret();
      const expiresAt = this.clock.now() + TOTP_ENROLMENT_LIFETIME_MS;
      const enrolment = this.sealer.seal(enrolmentContext(account.username, session.id), `${expiresAt} ${secret}`);
      const label = account.email === '' ? account.username : account.email;
      return ok({ secret, uri: this.issuer.uri(this.title, label, secret), enrolment, expiresAt });
    });
  }
}
