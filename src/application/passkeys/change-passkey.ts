import { parsePasskeyName } from '../../domain/passkey';
import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { PasskeyCredentials } from './passkey-credentials';
import type { PasskeyOwners } from './passkey-owner';
import type { Reauthentication, ReauthenticationError, ReauthenticationProof } from './reauthentication';

export interface ChangePasskeyInput {
  readonly sessionToken?: string;
  readonly fromThisSite: boolean;
  /** The passkey's credential id. */
  readonly id: string;
  /** `rename` with the new name (unchecked), or `remove` with the password (or a passkey) asked again. */
  readonly change: { readonly kind: 'rename'; readonly name: unknown } | { readonly kind: 'remove'; readonly proof: ReauthenticationProof };
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
  | ReauthenticationError;

/**
 * Renames or removes one of the logged-in person's passkeys; never another account's. A removal
 * first asks the person to prove again who they are (issue 29: a copied session cookie must not
 * be able to take away the owner's second factor); a rename changes a label and grants nothing.
 */
export class ChangePasskeyUseCase {
  constructor(
    private readonly owners: PasskeyOwners,
    private readonly reauthentication: Reauthentication,
    private readonly passkeys: PasskeyCredentials,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: ChangePasskeyInput): Promise<Result<{ readonly changed: true }, ChangePasskeyError>> {
    return this.owners.forOwnerFromThisSite(input, async (owner) => {
      const { account } = owner;
      const username = account.username;
      const change = input.change;
      if (change.kind === 'rename') {
        const name = parsePasskeyName(change.name);
        if (!name.ok) return err(name.error);
        return (await this.passkeys.rename(username, input.id, name.value)) ? ok({ changed: true }) : err({ code: 'passkey_not_found' });
      }
      // The only passkey of a passkey-only account is refused before any proof is asked (no
      // passkey to ask for a removal that cannot happen); the store's atomic step below decides.
      if (account.passkeyOnly === true && (await this.passkeys.list(username)).length <= 1) return err({ code: 'last_passkey' });
      const proven = await this.reauthentication.prove(owner, change.proof, input);
      if (!proven.ok) return proven;
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
