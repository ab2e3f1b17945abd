import type { AppGrants } from '../../application/ports/app-grants';
import type { Clock } from '../../application/ports/clock';
import type { OidcAccounts } from '../../application/ports/oidc-accounts';
import type { SubjectIdentifiers } from '../../application/ports/subject-identifiers';
import type { Identity } from '../../domain/session';

/**
 * {@link AppGrants} through the provider's account record: ending a person's grants moves the
 * record's "valid after" to now (rounded up to the next second, the resolution of a token's `iat`),
 * so every token issued before it, of every client and grant, is refused at its next use (refresh:
 * invalid_grant; userinfo and introspection: inactive). No list of grants is needed, and a grant
 * made on another replica at the same moment is covered too.
 */
export class AccountAppGrants implements AppGrants {
  constructor(
    private readonly accounts: OidcAccounts,
    private readonly subjects: SubjectIdentifiers,
    private readonly clock: Clock,
  ) {}

  endAll(identity: Identity): Promise<void> {
    return this.accounts.endTokensBefore(this.subjects.subjectOf(identity.provider, identity.username), Math.ceil(this.clock.now() / 1000));
  }
}

/** A gateway without OpenID Connect clients: no app holds anything. */
export const NO_APP_GRANTS: AppGrants = { endAll: async () => undefined };
