import { checkAuthenticationAsk, provenAt, reportedAcr, type AuthenticationAsk, type AuthenticationAskOutcome } from '../../domain/authentication-ask';
import { amrOf, type AuthenticationContext } from '../../domain/login-methods';
import { mayUseClient } from '../../domain/oidc-client';
import { err, ok, type Result } from '../../domain/result';
import type { Identity, Session } from '../../domain/session';
import { STEP_UP_LIFETIME_MS, type StepUpRequest } from '../../domain/step-up';
import type { UserStore } from '../ports/user-store';
import type { StepUpReferences } from '../step-up/step-up-references';
import type { StepUpSessions } from '../step-up/step-up-sessions';
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
  /** What the relying party asks of the login (`acr_values`, `max_age`); absent: any live login. */
  readonly ask?: AuthenticationAsk;
  /** Where a step-up goes back to (the interaction); absent: a step-up is answered without a reference. */
  readonly stepUpReturnTo?: string;
}

/** What an OpenID Connect login needs of the step-up (issue 33): its references, which methods an account holds, and the account. */
export interface OidcStepUp {
  readonly references: StepUpReferences;
  readonly sessions: StepUpSessions;
  readonly users: UserStore;
}

export interface AuthorizeOidcLoginOutput {
  readonly subject: string;
  readonly identity: Identity;
  /** When the session last proved who it is (seconds since the epoch; a step-up moves it): the ID token's `auth_time`. */
  readonly authTime: number;
  /** How it did (RFC 8176); empty for a session that records no proof (sealed before issue 33). */
  readonly amr: readonly string[];
  /** The context to report: the first the relying party asked that the proofs meet, else what they are. */
  readonly acr: AuthenticationContext;
}

/**
 * `login_required`: no finished gateway login (none, expired, revoked, or a TOTP code still owed):
 * the person must log in on the gateway's page first. `fresh_login_required`: a finished login,
 * but older than the relying party accepts (`loggedInSince`): the person logs in again, every step
 * of it. `access_denied`: logged in, but not among the
 * client's allowed users or groups (audited). `unknown_client`: not a configured client.
 * `store_unavailable`: the session or the account record could not be checked or stored.
 * `step_up_required`: the session does not meet `ask` and a step-up can mend it: `reference` is the
 * sealed step-up for the login page (`?step_up=`), null when no `stepUpReturnTo` was given.
 * `unmet_authentication_requirements`: the session does not meet the `acr` asked and no step-up of
 * this account can (no passkey for `phr`, no second factor for `mfa`).
 */
export type AuthorizeOidcLoginError =
  | { readonly code: 'login_required' }
  | { readonly code: 'fresh_login_required' }
  | { readonly code: 'access_denied' }
  | { readonly code: 'unknown_client' }
  | { readonly code: 'store_unavailable' }
  | { readonly code: 'step_up_required'; readonly reference: string | null }
  | { readonly code: 'unmet_authentication_requirements' };

/** Identity sources whose accounts the user store holds: only they can prove a method again here. */
const LOCAL_PROVIDERS: ReadonlySet<string> = new Set(['username', 'ldap']);

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
    /** Null: no step-up (an ask a session does not meet then needs a full login, or cannot be met). */
    private readonly stepUp: OidcStepUp | null = null,
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
    const session = auth.session;
    if (input.ask !== undefined) {
      const outcome = checkAuthenticationAsk(input.ask, session.proven, session.issuedAt, this.clock.now());
      if (outcome.kind !== 'met') return this.unmet(session, input.ask, outcome, input.stepUpReturnTo);
    }
    const subject = this.subjects.subjectOf(identity.provider, identity.username);
    const authTime = Math.floor(provenAt(session.proven, session.issuedAt) / 1000);
    const proofs = { authTime, amr: amrOf(session.proven), acr: reportedAcr(session.proven, input.ask?.acr ?? null) };
    if (input.dryRun === true) return ok({ subject, identity, ...proofs });
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
    return ok({ subject, identity, ...proofs });
  }

  /**
   * The answer to a session that does not meet what the relying party asks: a step-up (the same
   * one forward auth sends a session to) when this account holds a method that would meet it, else
   * a full login for a login that is only too old (the existing `fresh_login_required`), else
   * `unmet_authentication_requirements`: never an ID token with less than the `acr` asked.
   */
  private async unmet(
    session: Session,
    ask: AuthenticationAsk,
    outcome: Exclude<AuthenticationAskOutcome, { kind: 'met' }>,
    returnTo: string | undefined,
  ): Promise<Result<never, AuthorizeOidcLoginError>> {
    const cannot: Result<never, AuthorizeOidcLoginError> = err({ code: ask.acr === null ? 'fresh_login_required' : 'unmet_authentication_requirements' });
    if (outcome.kind === 'impossible' || this.stepUp === null || !LOCAL_PROVIDERS.has(session.provider)) return cannot;
    const { references, sessions, users } = this.stepUp;
    const request: StepUpRequest = {
      sessionId: session.id,
      username: session.username,
      methods: outcome.methods,
      // A proof made now is always recent enough: the page need not say how recent.
      maxAge: null,
      returnTo: returnTo ?? null,
      expiresAt: this.clock.now() + STEP_UP_LIFETIME_MS,
    };
    const held = await valueOrUnavailable(async () => {
      const account = await users.currentAccount(session.username);
      return account === null ? [] : sessions.available(request, account);
    });
    if (!held.ok) return held;
    if (held.value.length === 0) return cannot;
    return err({ code: 'step_up_required', reference: returnTo === undefined ? null : references.seal(request) });
  }
}
