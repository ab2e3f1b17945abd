import { hasTotp } from '../../domain/account';
import { err, ok, type Result } from '../../domain/result';
import type { PasskeyCredentials } from '../passkeys/passkey-credentials';
import type { AuditLog } from '../ports/audit-log';
import type { UserStore } from '../ports/user-store';
import { unavailableAsError } from '../store-unavailable';
import type { EnrolledTotpSecrets } from '../totp/enrolled-totp-secrets';
import { type AdminGate, type AdminRefusal, type AdminRequest, admitChange } from './admin-gate';
import { endSessionsOf, type PersonSessions } from './remove-person-factors';

export interface RemovePersonTotpInput extends AdminRequest {
  readonly fromThisSite: boolean;
  readonly username: string;
}

/**
 * `user_not_found`; `totp_set_by_administrator`: the secret is in the users file or directory (edit
 * it there); `totp_not_enrolled`: the person set none up; `last_admin`: an administrator removing
 * their own last second factor (they could not step up into the console again).
 */
export type RemovePersonTotpError =
  | AdminRefusal
  | { readonly code: 'cross_site_request' }
  | { readonly code: 'user_not_found' }
  | { readonly code: 'totp_set_by_administrator' }
  | { readonly code: 'totp_not_enrolled' }
  | { readonly code: 'last_admin' };

/**
 * `POST /api/admin/users/totp/remove` (issue 36): removes the TOTP secret a person set up on their
 * account page (a lost phone), and ends their sessions, as their own removal would.
 */
export class RemovePersonTotpUseCase {
  constructor(
    private readonly gate: AdminGate,
    /** The configured stores as they are, without self-enrolled secrets. */
    private readonly storeUsers: UserStore,
    private readonly enrolled: EnrolledTotpSecrets,
    /** Null with PASSKEYS off. */
    private readonly passkeys: PasskeyCredentials | null,
    private readonly sessions: PersonSessions,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: RemovePersonTotpInput): Promise<Result<{ readonly ended: number }, RemovePersonTotpError>> {
    const admitted = await admitChange(this.gate, this.audit, input);
    if (!admitted.ok) return admitted;
    const { identity, session } = admitted.value;
    return unavailableAsError(async () => {
      const account = await this.storeUsers.currentAccount(input.username);
      if (account === null) return err({ code: 'user_not_found' as const });
      if (hasTotp(account)) return err({ code: 'totp_set_by_administrator' as const });
      const secret = this.enrolled.secretOf(account.username);
      if (secret === null) return err({ code: 'totp_not_enrolled' as const });
      const self = account.username.toLowerCase() === identity.username.toLowerCase();
      if (self && (this.passkeys === null || (await this.passkeys.list(account.username)).length === 0)) return err({ code: 'last_admin' as const });
      if (!(await this.enrolled.remove(account.username, secret))) return err({ code: 'totp_not_enrolled' as const });
      const ended = await endSessionsOf(account.username, session.id, this.sessions);
      this.audit.record({ event: 'totp_removed', username: account.username, admin: identity.username, ended, ip: input.ip, requestId: input.requestId });
      return ok({ ended });
    });
  }
}
