import { parsePasskeyName } from '../../domain/passkey';
import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { PasskeyCredentials } from '../ports/passkey-credentials';
import type { PasskeyOwners } from '../services/passkey-owner';

export interface ChangePasskeyInput {
  readonly sessionToken?: string;
  readonly fromThisSite: boolean;
  /** The passkey's credential id. */
  readonly id: string;
  /** `rename` with the new name (unchecked), or `remove`. */
  readonly change: { readonly kind: 'rename'; readonly name: unknown } | { readonly kind: 'remove' };
  readonly ip: string;
  readonly requestId?: string;
}

export type ChangePasskeyError =
  | { readonly code: 'cross_site_request' }
  | { readonly code: 'not_logged_in' }
  | { readonly code: 'invalid_name' }
  /** The account holds no passkey with that id (another person's passkey reads the same). */
  | { readonly code: 'passkey_not_found' }
  /** The only passkey of a passkey-only account (issue 16): without it the person could not sign in at all. */
  | { readonly code: 'last_passkey' }
  | { readonly code: 'store_unavailable' };

/** Renames or removes one of the logged-in person's passkeys; never another account's. */
export class ChangePasskeyUseCase {
  constructor(
    private readonly owners: PasskeyOwners,
    private readonly passkeys: PasskeyCredentials,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: ChangePasskeyInput): Promise<Result<{ readonly changed: true }, ChangePasskeyError>> {
    return this.owners.forOwnerFromThisSite(input, async ({ account }) => {
      const username = account.username;
      if (input.change.kind === 'rename') {
        const name = parsePasskeyName(input.change.name);
        if (!name.ok) return err(name.error);
        return (await this.passkeys.rename(username, input.id, name.value)) ? ok({ changed: true }) : err({ code: 'passkey_not_found' });
      }
      // A passkey-only account keeps one, counted in the same step as the removal: two removals at
      // once (two tabs, two replicas) cannot take the last two.
      const removal = await this.passkeys.remove(username, input.id, account.passkeyOnly === true ? 1 : 0);
      if (removal === 'not_found') return err({ code: 'passkey_not_found' });
      if (removal === 'kept') return err({ code: 'last_passkey' });
      this.audit.record({ event: 'passkey_removed', username, credential: input.id.slice(0, 12), requestId: input.requestId });
      return ok({ changed: true });
    });
  }
}
