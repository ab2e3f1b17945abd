import type { AppGrant, AppGrants } from '../../application/account/app-grants';
import type { Clock } from '../../application/ports/clock';
import type { OidcAccounts } from '../../application/oidc/oidc-accounts';
import type { OidcClients } from '../../application/oidc/oidc-clients';
import type { SubjectIdentifiers } from '../../application/oidc/subject-identifiers';
import type { Identity } from '../../domain/session';

/**
 * {@link AppGrants} through the provider's account records: ending moves the person's (or one
 * app's) "ended at" to the start of the next second (a token's `iat` has seconds only), so
 * every token issued before it is refused at its next use (refresh: invalid_grant; userinfo and
 * introspection: inactive). No list of grants is walked, and a grant made on another replica at
 * the same moment is covered too. The list is the apps the person logged in to since then, within
 * the refresh token's life.
 */
export class AccountAppGrants implements AppGrants {
  constructor(
    private readonly accounts: OidcAccounts,
    private readonly subjects: SubjectIdentifiers,
    private readonly clients: OidcClients,
    private readonly clock: Clock,
    /** The longest a token issued at a login lives (the refresh token's): older logins hold nothing. */
    private readonly tokenTtlSeconds: number,
  ) {}

  async list(identity: Identity): Promise<readonly AppGrant[]> {
    const subject = this.subjectOf(identity);
    const [record, ended] = await Promise.all([this.accounts.find(subject), this.accounts.tokensEnded(subject)]);
    if (record === null) return [];
    const now = this.clock.now() / 1000;
    const grants: AppGrant[] = [];
    for (const [clientId, at] of Object.entries(record.clients)) {
      const client = this.clients.get(clientId);
      const endedAt = Math.max(ended.all, ended.clients[clientId] ?? 0, record.credentialSince);
      if (client === null || at < endedAt || at + this.tokenTtlSeconds <= now) continue;
      grants.push({ clientId, name: client.name, lastLoginAt: at * 1000 });
    }
    return grants.sort((a, b) => b.lastLoginAt - a.lastLoginAt);
  }

  async end(identity: Identity, clientId: string): Promise<boolean> {
    if (!(await this.list(identity)).some((g) => g.clientId === clientId)) return false;
    await this.accounts.endTokensBefore(this.subjectOf(identity), this.nextSecond(), clientId);
    return true;
  }

  endAll(identity: Identity): Promise<void> {
    return this.accounts.endTokensBefore(this.subjectOf(identity), this.nextSecond());
  }

  private subjectOf(identity: Identity): string {
    return this.subjects.subjectOf(identity.provider, identity.username);
  }

  private nextSecond(): number {
    return Math.floor(this.clock.now() / 1000) + 1;
  }
}

/** A gateway without OpenID Connect clients: no app holds anything. */
export const NO_APP_GRANTS: AppGrants = { list: async () => [], end: async () => false, endAll: async () => undefined };
