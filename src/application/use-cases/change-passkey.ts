import { parsePasskeyName } from '../../domain/passkey';
import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { PasskeyCredentials } from '../ports/passkey-credentials';
import type { PasskeyOwners } from '../services/passkey-owner';
import { isStoreUnavailable } from '../services/store-unavailable';

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
  | { readonly code: 'store_unavailable' };

/** Renames or removes one of the logged-in person's passkeys; never another account's. */
export class ChangePasskeyUseCase {
  constructor(
    private readonly owners: PasskeyOwners,
    private readonly passkeys: PasskeyCredentials,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: ChangePasskeyInput): Promise<Result<{ readonly changed: true }, ChangePasskeyError>> {
    try {
      const owner = await this.owners.of(input);
      if (owner.kind !== 'owner') return err({ code: owner.kind });
      const username = owner.account.username;
      if (input.change.kind === 'rename') {
        const name = parsePasskeyName(input.change.name);
        if (!name.ok) return err(name.error);
        return (await this.passkeys.rename(username, input.id, name.value)) ? ok({ changed: true }) : err({ code: 'passkey_not_found' });
      }
      if (!(await this.passkeys.remove(username, input.id))) return err({ code: 'passkey_not_found' });
      this.audit.record({ event: 'passkey_removed', username, credential: input.id.slice(0, 12), requestId: input.requestId });
      return ok({ changed: true });
    } catch (e) {
      if (isStoreUnavailable(e)) return err({ code: 'store_unavailable' });
      throw e;
    }
  }
}
