import { hasTotp } from '../../domain/account';
import type { PresentedCredentials } from '../../domain/credentials';
import type { Account } from '../../domain/account';
import { identityOf, isActive, type Identity, type Session } from '../../domain/session';
import { isWhitelisted, ANYONE, type OAuthWhitelist } from '../../domain/oauth-whitelist';
import { isPending, type Awaitable } from '../ports/awaitable';
import type { AuditLog } from '../ports/audit-log';
import type { CredentialFingerprints } from '../ports/credential-fingerprints';
import type { OAuthProviders } from '../ports/oauth-providers';
import type { Clock } from '../ports/clock';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { SessionSealer } from '../ports/session-sealer';
import type { UserStore } from '../ports/user-store';
import type { VerifiedCredentials } from './verified-credentials';
import type { GatewaySettings } from '../settings';
import type { CredentialCheck } from '../password/credential-check';
import type { LoginGuard } from '../password/login-guard';
import { isStoreUnavailable } from '../store-unavailable';
import type { SessionActivity } from './last-seen-recorder';
import type { RenewedSession, SessionRenewal } from './session-issuer';
import type { TokenAuthenticator } from '../tokens/token-authenticator';
import type { JwtAuthenticator } from '../tokens/jwt-authenticator';

/** The credentials a request carries. */
export interface RequestCredentials {
  /** The session cookie's value, if any. */
  readonly sessionToken?: string;
  /** HTTP Basic credentials, decoded by the HTTP adapter, if the request presented any. */
  readonly credentials?: PresentedCredentials;
  /** An access token (issue 32), as presented (`Authorization: Bearer pct_…` or `Portcullis-Token`), if any. */
  readonly token?: string;
  /**
   * A workload's JWT (issue 32): `Authorization: Bearer <jwt>` whose unverified `iss` names a
   * configured issuer (the HTTP adapter decides), if any.
   */
  readonly jwt?: string;
  readonly ip: string;
  /** Correlates audit events with the request that caused them. */
  readonly requestId?: string;
}

export type Authentication =
  /** `renewed`: the session renewed by this request (issue 33), whose cookie the answer must set. */
  | { readonly kind: 'session'; readonly identity: Identity; readonly session: Session; readonly renewed?: RenewedSession }
  | { readonly kind: 'basic'; readonly identity: Identity }
  | { readonly kind: 'token'; readonly identity: Identity }
  /** A workload's JWT from a configured issuer: the identity `<issuer id>:<username claim>`. */
  | { readonly kind: 'jwt'; readonly identity: Identity }
  | { readonly kind: 'invalid_token' }
  | { readonly kind: 'pending'; readonly session: Session }
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'locked'; readonly retryAfter: number }
  | { readonly kind: 'unavailable' };

const ANONYMOUS: Authentication = { kind: 'anonymous' };
const UNAVAILABLE: Authentication = { kind: 'unavailable' };
const INVALID_TOKEN: Authentication = { kind: 'invalid_token' };
/** Providers whose sessions belong to an account in the user store. */
const LOCAL_PROVIDERS: ReadonlySet<string> = new Set(['username', 'ldap']);

/** What OAuth sessions are checked against on every request. */
export interface OAuthSessionRules {
  readonly providers: OAuthProviders;
  readonly whitelist: OAuthWhitelist;
  /** Providers with a whitelist of their own (`OAUTH_PROVIDERS_<ID>_WHITELIST`), which replaces `whitelist` for them. */
  readonly whitelists?: ReadonlyMap<string, OAuthWhitelist>;
}

const NO_ACTIVITY: SessionActivity = { seen: () => undefined, idle: () => false };

const NO_OAUTH: OAuthSessionRules = { providers: { get: () => null, ids: () => [] }, whitelist: ANYONE };

/**
 * What this process knows of one account object, made once per account version, not per request:
 * stores hand out the same object until a reload (or, for a directory, a re-check), and a changed
 * account (password, groups, name, TOTP) is a new object, so a new view. Kept in a WeakMap keyed by
 * the account: bounded by the accounts the store still holds, and never stale (ADR 0040).
 */
interface AccountView {
  /** The fingerprint of its credential, made when a session of it is first checked (see currentIdentity). */
  credential?: string;
  /** The identities of its sessions, by provider and TOTP flag (`1username`). */
  readonly identities: Map<string, Identity>;
  /**
   * Those identities with a session's proofs (issue 33), by the session's `proven` object: a
   * sealer that hands out one session object per cookie makes this one identity per session, not
   * one per request.
   */
  readonly withProofs: WeakMap<object, Identity>;
  /** Its HTTP Basic answer (and identity): the same object on every request, so the HTTP adapter reuses what it built for it. */
  basic?: Authentication;
}

/** How sessions are read: the cookie's sealer, the revocations, the clock, the OAuth rules and "last seen". */
export interface SessionReading {
  readonly sealer: SessionSealer;
  readonly revoked: RevokedSessions;
  readonly clock: Clock;
  readonly oauth?: OAuthSessionRules;
  /** Told of every full session a request uses, for "last seen" and the idle timeout (answers at once, writes later). */
  readonly activity?: SessionActivity;
  /** Renews a session in use (issue 33: SESSION_MAX_LIFETIME); absent: sessions end at their expiry. */
  readonly renewal?: SessionRenewal;
}

/** How long a renewal is handed out again to requests still carrying the cookie it replaces. */
const RENEWAL_REUSE_MS = 10_000;

/** The accounts sessions and HTTP Basic speak for, and the fingerprints of their credentials. */
export interface AccountReading {
  readonly users: UserStore;
  readonly fingerprints: CredentialFingerprints;
}

/** What HTTP Basic needs: the cache of verified headers, the locks, and the password check. */
export interface BasicChecking {
  readonly verified: VerifiedCredentials;
  readonly guard: LoginGuard;
  readonly credentials: CredentialCheck;
}

/** How many stale session ids are remembered so that each is audited once, not at every retry of its cookie. */
const STALE_AUDITED_MAX = 1000;

/**
 * Finds out who a request comes from: a live, unrevoked session cookie first, else HTTP Basic
 * (refused for TOTP accounts). Shared by every use case that needs the caller's identity.
 */
export class RequestAuthenticator {
  // What this process knows of each account version (see AccountView).
  private readonly views = new WeakMap<Account, AccountView>();
  private readonly staleAudited = new Set<string>();
  private readonly sealer: SessionSealer;
  private readonly revoked: RevokedSessions;
  private readonly clock: Clock;
  private readonly oauth: OAuthSessionRules;
  private readonly activity: SessionActivity;
  private readonly renewal: SessionRenewal | null;
  /**
   * The renewal of each opened cookie, by the session object the sealer hands out for it (one per
   * cookie value, so keyed by all a renewal is made from: a stepped-up copy of the same session is
   * another key), with when it was made. A WeakMap: it lives as long as the sealer's cache holds the cookie.
   */
  private readonly renewals = new WeakMap<Session, { readonly at: number; readonly renewed: RenewedSession }>();
  private readonly users: UserStore;
  private readonly fingerprints: CredentialFingerprints;
  private readonly verified: VerifiedCredentials;
  private readonly guard: LoginGuard;
  private readonly credentials: CredentialCheck;

  constructor(
    sessions: SessionReading,
    accounts: AccountReading,
    basic: BasicChecking,
    private readonly settings: GatewaySettings,
    private readonly audit: AuditLog,
    /** Access tokens (issue 32); null with TOKENS=false. */
    private readonly tokens: TokenAuthenticator | null = null,
    /** Workload JWTs (issue 32); null without a configured issuer. */
    private readonly jwts: JwtAuthenticator | null = null,
  ) {
    ({ sealer: this.sealer, revoked: this.revoked, clock: this.clock } = sessions);
    this.oauth = sessions.oauth ?? NO_OAUTH;
    this.activity = sessions.activity ?? NO_ACTIVITY;
    this.renewal = sessions.renewal ?? null;
    ({ users: this.users, fingerprints: this.fingerprints } = accounts);
    ({ verified: this.verified, guard: this.guard, credentials: this.credentials } = basic);
  }

  /** The live session in a cookie value, pending or not; null when absent, forged, expired or revoked. */
  async session(token: string | undefined): Promise<Session | null> {
    const session = this.unexpiredSession(token);
    if (session === null || (await this.revoked.isRevoked(session.id))) return null;
    return session;
  }

  /**
   * The session in a cookie value when it is genuine and unexpired, without asking whether it was
   * revoked: for logout, which may revoke it again even when revocations cannot be read.
   */
  unexpiredSession(token: string | undefined): Session | null {
    if (token === undefined || token === '') return null;
    const session = this.sealer.unseal(token);
    if (session === null || !isActive(session, this.clock.now())) return null;
    // A provider removed from the configuration, or an address the whitelist no longer admits, ends the session.
    if (
      session.oauth &&
      (this.oauth.providers.get(session.provider) === null ||
        !isWhitelisted(this.oauth.whitelists?.get(session.provider) ?? this.oauth.whitelist, session.email))
    )
      return null;
    return session;
  }

  /**
   * Who the request comes from. Answers at once when every store it asks answers at once (see
   * Awaitable): forward auth then runs from request to answer without a single promise.
   */
  authenticate(credentials: RequestCredentials): Awaitable<Authentication> {
    // A token is the credential a machine chose to present: it decides, whatever cookie came along.
    if (credentials.token !== undefined) {
      return this.tokens === null ? INVALID_TOKEN : this.tokens.authenticate(credentials.token, credentials.ip, credentials.requestId);
    }
    if (credentials.jwt !== undefined) {
      return this.jwts === null ? INVALID_TOKEN : this.jwts.authenticate(credentials.jwt, credentials.ip, credentials.requestId);
    }
    let session: Session | null;
    let revoked: Awaitable<boolean>;
    try {
      session = this.unexpiredSession(credentials.sessionToken);
      revoked = session === null ? false : this.revoked.isRevoked(session.id);
    } catch (e) {
      return unavailableOrThrow(e);
    }
    if (isPending(revoked)) {
      const pending = session;
      return revoked.then((r) => this.afterRevocationCheck(r ? null : pending, credentials), unavailableOrThrow);
    }
    return this.afterRevocationCheck(revoked ? null : session, credentials);
  }

  /** `session` is the live (unrevoked) session, or null; a full one unused for the idle timeout (issue 33) counts as none. */
  private afterRevocationCheck(session: Session | null, credentials: RequestCredentials): Awaitable<Authentication> {
    if (session === null || session.totpPending) return this.afterIdleCheck(session, credentials);
    let idle: Awaitable<boolean>;
    try {
      idle = this.activity.idle(session.id, session.issuedAt);
    } catch (e) {
      return unavailableOrThrow(e);
    }
    if (isPending(idle)) return idle.then((i) => this.afterIdleCheck(this.unlessIdle(session, i, credentials), credentials), unavailableOrThrow);
    return this.afterIdleCheck(this.unlessIdle(session, idle, credentials), credentials);
  }

  /** The session, or null (audited once) when it has gone unused for the idle timeout. */
  private unlessIdle(session: Session, idle: boolean, credentials: RequestCredentials): Session | null {
    if (!idle) return session;
    this.stale(session, 'idle', credentials.requestId);
    return null;
  }

  /** `session` is the live, unrevoked, not idle session, or null: then HTTP Basic, else anonymous. */
  private afterIdleCheck(session: Session | null, credentials: RequestCredentials): Awaitable<Authentication> {
    if (session !== null) {
      if (!session.totpPending) this.activity.seen(session.id);
      const identity = this.currentIdentity(session, credentials.requestId);
      return isPending(identity) ? identity.then((i) => this.sessionAuthentication(session, i)) : this.sessionAuthentication(session, identity);
    }
    if (credentials.credentials !== undefined) return this.basic(credentials.credentials, credentials.ip, credentials.requestId);
    return ANONYMOUS;
  }

  /**
   * Who a session speaks for now, or null when it must end. A session of a password account lives
   * only while its account exists with the credential (password or directory entry, and TOTP
   * secret) it was made with, and carries the account's current name, e-mail and groups, so an
   * administrator's change reaches it at its next request (after a reload, or a directory
   * re-check). Other sessions (OAuth) have no store to ask and keep what the provider said.
   */
  private currentIdentity(session: Session, requestId: string | undefined): Awaitable<Identity | null> {
    if (!LOCAL_PROVIDERS.has(session.provider)) return session;
    let account: Awaitable<Account | null>;
    // The session was proven at login; an outage of a remote store must not log everyone out
    // (nor turn every forward-auth answer into a 503). Logins still report the outage.
    const sessionDuringOutage = (e: unknown): Session => {
      if (isStoreUnavailable(e)) return session;
      throw e;
    };
    try {
      account = this.users.currentAccount(session.username);
    } catch (e) {
      return sessionDuringOutage(e);
    }
    if (isPending(account)) return account.then((a) => this.identityOf(session, a, requestId), sessionDuringOutage);
    return this.identityOf(session, account, requestId);
  }

  /** The identity a session carries now that its account has been read (null: the session must end). */
  private identityOf(session: Session, account: Account | null, requestId: string | undefined): Identity | null {
    if (account === null) {
      this.stale(session, 'account_removed', requestId);
      return null;
    }
    const view = this.viewOf(account);
    view.credential ??= this.fingerprints.of(account);
    if (session.credential !== view.credential) {
      this.stale(session, 'credential_changed', requestId);
      return null;
    }
    const key = `${session.totp ? 1 : 0}${session.provider}`;
    let identity = view.identities.get(key);
    if (identity === undefined) {
      identity = Object.freeze(identityOf(account, session.provider, session.totp));
      view.identities.set(key, identity);
    }
    // What this session proved, and when, goes with it: per-path requirements and the upstream's amr read it.
    let proven = view.withProofs.get(session.proven);
    if (proven === undefined || proven.provider !== session.provider || proven.totp !== session.totp) {
      proven = Object.freeze({ ...identity, proven: session.proven });
      view.withProofs.set(session.proven, proven);
    }
    return proven;
  }

  private viewOf(account: Account): AccountView {
    let view = this.views.get(account);
    if (view === undefined) {
      view = { identities: new Map(), withProofs: new WeakMap() };
      this.views.set(account, view);
    }
    return view;
  }

  /** Audits a refused session once per session id (its cookie keeps coming until the browser drops it). */
  private stale(session: Session, reason: 'credential_changed' | 'account_removed' | 'idle', requestId: string | undefined): void {
    if (this.staleAudited.has(session.id)) return;
    if (this.staleAudited.size >= STALE_AUDITED_MAX) this.staleAudited.clear();
    this.staleAudited.add(session.id);
    this.audit.record({ event: 'session_stale', username: session.username, reason, requestId });
  }

  private basic(parsed: PresentedCredentials, ip: string, requestId: string | undefined): Awaitable<Authentication> {
    const now = this.clock.now();
    const cacheTtl = this.settings.basicCacheTtlMs;
    const key = cacheTtl > 0 ? this.verified.keyFor(parsed) : '';
    let answer: Awaitable<Authentication>;
    try {
      const hit = cacheTtl > 0 ? this.verified.get(key, now) : null;
      if (hit === null) {
        answer = this.checkBasic(parsed, ip, requestId, key, now);
      } else {
        // Re-read the account: a removed account or changed password must not ride the cache.
        const account = this.users.findAccount(hit.username);
        answer = isPending(account)
          ? account.then((a) => this.afterCacheHit(a, hit, parsed, ip, requestId, key, now))
          : this.afterCacheHit(account, hit, parsed, ip, requestId, key, now);
      }
    } catch (e) {
      return unavailableOrThrow(e);
    }
    return isPending(answer) ? answer.catch(unavailableOrThrow) : answer;
  }

  /** A cached verdict holds only for the same account with the same credential, no TOTP, and no lock in force. */
  private afterCacheHit(
    account: Account | null,
    hit: { readonly username: string; readonly credentialVersion: string },
    parsed: PresentedCredentials,
    ip: string,
    requestId: string | undefined,
    key: string,
    now: number,
  ): Awaitable<Authentication> {
    if (account !== null && account.credentialVersion === hit.credentialVersion && !hasTotp(account)) {
      // A lock taken since (by any login method) wins over the cache. The clock was read before
      // the account: a reading older by a store's round trip can only keep a lock in force longer.
      const retryAfter = this.guard.retryAfter(account.username, ip, now);
      return isPending(retryAfter) ? retryAfter.then((r) => this.cachedBasic(account, r)) : this.cachedBasic(account, retryAfter);
    }
    this.verified.forgetUser(hit.username);
    return this.checkBasic(parsed, ip, requestId, key, now);
  }

  private cachedBasic(account: Account, retryAfter: number): Authentication {
    if (retryAfter > 0) return { kind: 'locked', retryAfter };
    return this.basicAuthentication(account);
  }

  /** The password check (bcrypt, lock counting, audit) for a header the cache does not vouch for. */
  private async checkBasic(parsed: PresentedCredentials, ip: string, requestId: string | undefined, key: string, now: number): Promise<Authentication> {
    const cacheTtl = this.settings.basicCacheTtlMs;
    const checked = await this.credentials.basicPassword({ login: parsed.username, password: parsed.password, ip, requestId }, key);
    if (!checked.ok) {
      switch (checked.error.code) {
        case 'account_locked':
          return { kind: 'locked', retryAfter: checked.error.retryAfter };
        case 'invalid_credentials':
          // Guesses that locked the account also drop what the cache knew of it.
          if (checked.error.locked !== null) this.verified.forgetUser(checked.error.locked);
          return ANONYMOUS;
        // Basic is disabled for accounts with a second factor: the password alone must not pass.
        case 'second_factor_required':
          return ANONYMOUS;
        case 'store_unavailable':
          return UNAVAILABLE;
        default: {
          const unreachable: never = checked.error;
          return unreachable;
        }
      }
    }
    const { account } = checked.value;
    // Audited when the password was actually checked; cache hits are not new logins.
    this.audit.record({ event: 'login_succeeded', username: account.username, method: 'basic', ip, requestId });
    if (cacheTtl > 0) this.verified.put(key, { username: account.username, credentialVersion: account.credentialVersion }, now, cacheTtl);
    return this.basicAuthentication(account);
  }

  private sessionAuthentication(session: Session, identity: Identity | null): Authentication {
    if (identity === null) return ANONYMOUS;
    if (session.totpPending) return { kind: 'pending', session };
    const renewed = this.renewed(session);
    return renewed === null ? { kind: 'session', identity, session } : { kind: 'session', identity, session, renewed };
  }

  /**
   * The renewal of a session in use, if it is due (see SessionIssuer.renew). Requests sent together
   * with the old cookie get the same renewal for a few seconds: one seal, not one per request.
   */
  private renewed(session: Session): RenewedSession | null {
    if (this.renewal === null || session.renewableUntil === undefined) return null;
    const now = this.clock.now();
    const kept = this.renewals.get(session);
    if (kept !== undefined && now - kept.at < RENEWAL_REUSE_MS) return kept.renewed;
    const renewed = this.renewal.renew(session);
    if (renewed === null) return null;
    this.renewals.set(session, { at: now, renewed });
    return renewed;
  }

  /** One answer object per account object (and so one identity): see AccountView. */
  private basicAuthentication(account: Account): Authentication {
    const view = this.viewOf(account);
    return (view.basic ??= Object.freeze({ kind: 'basic', identity: Object.freeze(identityOf(account, 'basic', false)) }));
  }
}

/** An outage of a store answers "unavailable" (a 503), never "anonymous"; anything else is a bug and propagates. */
function unavailableOrThrow(e: unknown): Authentication {
  if (isStoreUnavailable(e)) return UNAVAILABLE;
  throw e;
}
