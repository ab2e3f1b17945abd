import { hasTotp } from '../../domain/account';
import { err, ok, type Result } from '../../domain/result';
import type { PasskeyCredentials } from '../passkeys/passkey-credentials';
import type { AuditLog } from '../ports/audit-log';
import type { UserStore } from '../ports/user-store';
import { unavailableAsError } from '../store-unavailable';
import { type AdminGate, type AdminRefusal, type AdminRequest, admitChange } from './admin-gate';
import { endSessionsOf, type PersonSessions } from './remove-person-factors';

export interface RemovePersonPasskeysInput extends AdminRequest {
  readonly fromThisSite: boolean;
  readonly username: string;
  /** One passkey by its credential id; absent: all of them. */
  readonly id?: string;
}

/**
 * `user_not_found`; `passkey_not_found`: no such passkey (or none at all); `last_admin`: an
 * administrator removing their own last passkey while it is their only second factor (or their
 * only way in, for a passkey-only account).
 */
export type RemovePersonPasskeysError =
  | AdminRefusal
  | { readonly code: 'cross_site_request' }
  | { readonly code: 'user_not_found' }
  | { readonly code: 'passkey_not_found' }
  | { readonly code: 'last_admin' };

/**
 * `POST /api/admin/users/passkeys/remove` (issue 36): removes one or all of a person's passkeys (a
 * lost key) and ends their sessions. A passkey-only person gets back in with a new passkey link.
 */
export class RemovePersonPasskeysUseCase {
  constructor(
    private readonly gate: AdminGate,
    /** The store with self-enrolled TOTP secrets laid over it: what a login checks. */
    private readonly users: UserStore,
    /** Null with PASSKEYS off: nobody has one then. */
    private readonly passkeys: PasskeyCredentials | null,
    private readonly sessions: PersonSessions,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: RemovePersonPasskeysInput): Promise<Result<{ readonly removed: number; readonly ended: number }, RemovePersonPasskeysError>> {
    const admitted = await admitChange(this.gate, this.audit, input);
    if (!admitted.ok) return admitted;
    const { identity, session } = admitted.value;
    const passkeys = this.passkeys;
    return unavailableAsError(async () => {
      const account = await this.users.currentAccount(input.username);
      if (account === null) return err({ code: 'user_not_found' as const });
      const held = passkeys === null ? [] : await passkeys.list(account.username);
      const chosen = input.id === undefined ? held : held.filter((p) => p.id === input.id);
      if (passkeys === null || chosen.length === 0) return err({ code: 'passkey_not_found' as const });
      const self = account.username.toLowerCase() === identity.username.toLowerCase();
      const left = held.length - chosen.length;
      if (self && left === 0 && (account.passkeyOnly === true || !hasTotp(account))) return err({ code: 'last_admin' as const });
      let removed = 0;
      for (const p of chosen) if ((await passkeys.remove(account.username, p.id)) === 'removed') removed += 1;
      if (removed === 0) return err({ code: 'passkey_not_found' as const });
      const ended = await endSessionsOf(account.username, session.id, this.sessions);
      this.audit.record({
        event: 'passkeys_removed',
        username: account.username,
        admin: identity.username,
        count: removed,
        ended,
        ip: input.ip,
        requestId: input.requestId,
      });
      return ok({ removed, ended });
    });
  }
}
