import { hasTotp } from '../../domain/account';
import { err, ok, type Result } from '../../domain/result';
import type { Session } from '../../domain/session';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { EnrolledTotpSecrets } from './enrolled-totp-secrets';
import type { UserStore } from '../ports/user-store';
import type { CredentialCheck } from '../password/credential-check';
import { PasskeyOwners } from '../passkeys/passkey-owner';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import type { SecondFactorSessions } from './second-factor-sessions';

export interface RemoveTotpEnrolmentInput {
  readonly sessionToken?: string;
  /** A current code of the secret being removed. */
  readonly code: string;
  readonly ip: string;
  readonly requestId?: string;
  readonly userAgent?: string;
}

export interface RemoveTotpEnrolmentOutput {
  /** The caller's new session; every other session of the account ended. */
  readonly session: Session;
  readonly token: string;
  readonly ended: number;
}

export type RemoveTotpEnrolmentError =
  | { readonly code: 'not_logged_in' }
  | { readonly code: 'totp_set_by_administrator' }
  | { readonly code: 'totp_not_enrolled' }
  | { readonly code: 'invalid_code' }
  | { readonly code: 'totp_replayed' }
  | { readonly code: 'account_locked'; readonly retryAfter: number }
  | { readonly code: 'store_unavailable' };

/**
 * Removes the TOTP code the logged-in person set up, against a current code of it: a session
 * alone (a cookie left on a shared computer) must not be enough to drop the second factor. The
 * code is checked like the login's TOTP step (counted under the account's lock, claimed against
 * replay). Every session of the account ends; the caller's is re-issued for the new credential.
 */
export class RemoveTotpEnrolmentUseCase {
  private readonly owners: PasskeyOwners;

  constructor(
    authenticator: RequestAuthenticator,
    /** The configured user stores as they are, without self-enrolled secrets. */
    storeUsers: UserStore,
    private readonly enrolled: EnrolledTotpSecrets,
    private readonly credentials: CredentialCheck,
    private readonly sessions: SecondFactorSessions,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {
    this.owners = new PasskeyOwners(authenticator, storeUsers);
  }

  async execute(input: RemoveTotpEnrolmentInput): Promise<Result<RemoveTotpEnrolmentOutput, RemoveTotpEnrolmentError>> {
    return this.owners.forOwner(input, async ({ account, session }) => {
      if (hasTotp(account)) return err({ code: 'totp_set_by_administrator' });
      const secret = this.enrolled.secretOf(account.username);
      if (secret === null) return err({ code: 'totp_not_enrolled' });
      const checked = await this.credentials.totpCode({
        username: account.username,
        credential: session.credential,
        code: input.code,
        ip: input.ip,
        at: this.clock.now(),
        requestId: input.requestId,
      });
      if (!checked.ok) return err(checked.error.code === 'not_pending' ? { code: 'totp_not_enrolled' } : checked.error);
      // Compare and delete: a secret replaced meanwhile (removed and set up again elsewhere) stays.
      if (!(await this.enrolled.remove(account.username, secret))) return err({ code: 'totp_not_enrolled' });
      const reissued = await this.sessions.reissue(session, account, false, 'password', input);
      this.audit.record({ event: 'totp_removed', username: account.username, ip: input.ip, requestId: input.requestId });
      return ok(reissued);
    });
  }
}
