import { mayUseClient } from '../../domain/oidc-client';
import { err, ok, type Result } from '../../domain/result';
import type { Identity } from '../../domain/session';
import type { CredentialFingerprints } from '../ports/credential-fingerprints';
import type { OidcAccounts } from './oidc-accounts';
import type { OidcClients } from './oidc-clients';
import type { UserStore } from '../ports/user-store';

export interface FindOidcAccountInput {
  readonly subject: string;
  /**
   * The client the answer is for (the token's): the person must still pass its ALLOWED_USERS and
   * ALLOWED_GROUPS, as at the login. Undefined only where no client is involved.
   */
  readonly clientId?: string;
  /**
   * When the token asked about was issued (seconds since the epoch; for a refresh token, the first
   * of its rotations): refused when the person's grants were ended after it. Undefined: no token.
   */
  readonly issuedAt?: number;
}

/** The claims' source: who the subject is now. */
export interface FindOidcAccountOutput {
  readonly subject: string;
  readonly identity: Identity;
}

/**
 * `unknown_account`: no login of this subject is remembered, or its account was removed or
 * disabled since: tokens and refresh tokens issued to it stop working. `grant_ended`: the token
 * was issued before the person's grants were ended ("sign out everywhere") or with a credential
 * (password, TOTP secret) the account no longer has. `not_allowed`: the account
 * no longer passes the client's ALLOWED_USERS / ALLOWED_GROUPS (or the client is gone): its tokens
 * for that client stop working the same way.
 */
export type FindOidcAccountError = { readonly code: 'unknown_account' } | { readonly code: 'not_allowed' } | { readonly code: 'grant_ended' };

/** Identity sources whose accounts live in the user store and are read again on every lookup. */
const STORE_SOURCES: ReadonlySet<string> = new Set(['username', 'ldap']);

/**
 * Who a subject is, for the ID token, userinfo, introspection and refresh: a password account
 * (USERS, USERS_FILE, LDAP) as its store knows it now (a changed e-mail, name or group shows at
 * once; a removed account ends its tokens); an OAuth identity as its last login proved it.
 * Rejects with the store's unavailable error when the account cannot be read.
 */
export class FindOidcAccountUseCase {
  constructor(
    private readonly accounts: OidcAccounts,
    private readonly users: UserStore,
    private readonly clients: OidcClients,
    private readonly fingerprints: CredentialFingerprints,
  ) {}

  async execute(input: FindOidcAccountInput): Promise<Result<FindOidcAccountOutput, FindOidcAccountError>> {
    const found = await this.current(input);
    if (!found.ok || input.clientId === undefined) return found;
    // The same admission as at the login, on who the person is now: leaving the group ends the client's refresh and userinfo at once.
    const client = this.clients.get(input.clientId);
    if (client === null || !mayUseClient(client, found.value.identity)) return err({ code: 'not_allowed' });
    return found;
  }

  private async current({ subject, issuedAt, clientId }: FindOidcAccountInput): Promise<Result<FindOidcAccountOutput, FindOidcAccountError>> {
    const [record, ended] = await Promise.all([this.accounts.find(subject), issuedAt === undefined ? null : this.accounts.tokensEnded(subject)]);
    if (record === null) return err({ code: 'unknown_account' });
    if (issuedAt !== undefined && ended !== null) {
      const endedAt = Math.max(record.credentialSince, ended.all, clientId === undefined ? 0 : (ended.clients[clientId] ?? 0));
      if (issuedAt < endedAt) return err({ code: 'grant_ended' });
    }
    const remembered = record.identity;
    if (!STORE_SOURCES.has(remembered.provider)) return ok({ subject: record.subject, identity: remembered });
    const account = await this.users.currentAccount(remembered.username);
    if (account === null) return err({ code: 'unknown_account' });
    // As a gateway session does (ADR 0008): a changed password or TOTP secret ends what the old one made.
    if (record.credential !== undefined && record.credential !== this.fingerprints.of(account)) return err({ code: 'grant_ended' });
    return ok({
      subject: record.subject,
      identity: { ...remembered, username: account.username, name: account.name, email: account.email, groups: account.groups },
    });
  }
}
