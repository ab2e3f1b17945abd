import { mayUseClient } from '../../domain/oidc-client';
import { err, ok, type Result } from '../../domain/result';
import type { Identity } from '../../domain/session';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { OidcAccounts } from './oidc-accounts';
import type { OidcClients } from './oidc-clients';
import type { SubjectIdentifiers } from './subject-identifiers';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import { valueOrUnavailable } from '../store-unavailable';

export interface AuthorizeOidcLoginInput {
  /** The client the provider is logging the person in to. */
  readonly clientId: string;
  /** The gateway's session cookie, if any: the only proof of a login that counts here. */
  readonly sessionToken?: string;
  readonly ip: string;
  readonly requestId?: string;
  /** False when the provider only re-checks a live login of its own: a refusal is audited once, when it is answered. */
  readonly recordRefusal?: boolean;
  /**
   * The relying party asked for a fresh login (`prompt=login`, `max_age`): a session issued before
   * this instant (milliseconds since the epoch) does not count, however live it is.
   */
  readonly loggedInSince?: number;
  /** True to only learn the outcome (a check before the provider starts an interaction): nothing is audited or stored. */
  readonly dryRun?: boolean;
}

export interface AuthorizeOidcLoginOutput {
  readonly subject: string;
  readonly identity: Identity;
  /** When the person logged in to the gateway (seconds since the epoch): the ID token's `auth_time`. */
  readonly authTime: number;
}

/**
 * `login_required`: no finished gateway login (none, expired, revoked, or a TOTP code still owed):
 * the person must log in on the gateway's page first. `fresh_login_required`: a finished login,
 * but older than the relying party accepts (`loggedInSince`): the person logs in again, every step
 * of it. `access_denied`: logged in, but not among the
 * client's allowed users or groups (audited). `unknown_client`: not a configured client.
 * `store_unavailable`: the session or the account record could not be checked or stored.
 */
export type AuthorizeOidcLoginError =
  | { readonly code: 'login_required' }
  | { readonly code: 'fresh_login_required' }
  | { readonly code: 'access_denied' }
  | { readonly code: 'unknown_client' }
  | { readonly code: 'store_unavailable' };

/**
 * Decides the login step of an OpenID Connect authorization: the person's gateway session (single
 * sign-on) is the login. HTTP Basic credentials never count: a browser's cached Basic login is not
 * a session a relying party may inherit.
 */
export class AuthorizeOidcLoginUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly clients: OidcClients,
    private readonly subjects: SubjectIdentifiers,
    private readonly accounts: OidcAccounts,
    private readonly audit: AuditLog,
    /** How long what the login proved is kept: the longest life of a token issued from it (the refresh token's). */
    private readonly accountTtlSeconds: number,
    private readonly clock: Clock,
  ) {}

  async execute(input: AuthorizeOidcLoginInput): Promise<Result<AuthorizeOidcLoginOutput, AuthorizeOidcLoginError>> {
    const client = this.clients.get(input.clientId);
    if (client === null) return err({ code: 'unknown_client' });
    const auth = await this.authenticator.authenticate({ sessionToken: input.sessionToken, ip: input.ip, requestId: input.requestId });
    if (auth.kind === 'unavailable') return err({ code: 'store_unavailable' });
    // `pending` (password accepted, TOTP owed) is not a login: it must never reach a relying party.
    if (auth.kind !== 'session') return err({ code: 'login_required' });
    // A live session proves who logged in, not that they are here now: the relying party asked for the latter.
    if (input.loggedInSince !== undefined && auth.session.issuedAt < input.loggedInSince) return err({ code: 'fresh_login_required' });
    const identity = auth.identity;
    if (!mayUseClient(client, identity)) {
      if (input.recordRefusal !== false && input.dryRun !== true)
        this.audit.record({
          event: 'oidc_access_denied',
          username: identity.username,
          client: client.clientId,
          ip: input.ip,
          reason: 'not_allowed',
          requestId: input.requestId,
        });
      return err({ code: 'access_denied' });
    }
    const subject = this.subjects.subjectOf(identity.provider, identity.username);
    const authTime = Math.floor(auth.session.issuedAt / 1000);
    if (input.dryRun === true) return ok({ subject, identity, authTime });
    const remembered = await valueOrUnavailable(async () => {
      const before = await this.accounts.find(subject);
      // A login with another credential than the last one (a changed password or TOTP secret): the tokens issued before this login stay ended.
      const changed = before?.credential !== undefined && before.credential !== auth.session.credential;
      const credentialSince = changed ? authTime : (before?.credentialSince ?? 0);
      const credential = auth.session.credential;
      // The apps logged in to (for the account page), without those no configured client has any more.
      const now = Math.floor(this.clock.now() / 1000);
      const clients = Object.fromEntries(Object.entries(before?.clients ?? {}).filter(([id]) => this.clients.get(id) !== null));
      await this.accounts.remember(
        { subject, identity, ...(credential === undefined ? {} : { credential }), credentialSince, clients: { ...clients, [client.clientId]: now } },
        this.accountTtlSeconds,
      );
    });
    if (!remembered.ok) return remembered;
    this.audit.record({ event: 'oidc_login', username: identity.username, client: client.clientId, ip: input.ip, requestId: input.requestId });
    return ok({ subject, identity, authTime });
  }
}
