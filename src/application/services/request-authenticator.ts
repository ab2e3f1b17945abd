import { hasTotp } from '../../domain/account';
import type { PresentedCredentials } from '../../domain/credentials';
import type { Account } from '../../domain/account';
import { identityOf, isActive, type Identity, type Session } from '../../domain/session';
import { isWhitelisted, ANYONE, type OAuthWhitelist } from '../../domain/oauth-whitelist';
import type { AuditLog } from '../ports/audit-log';
import type { CredentialFingerprints } from '../ports/credential-fingerprints';
import type { OAuthProviders } from '../ports/oauth-providers';
import type { Clock } from '../ports/clock';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { SessionSealer } from '../ports/session-sealer';
import type { UserStore } from '../ports/user-store';
import type { VerifiedCredentials } from '../ports/verified-credentials';
import type { GatewaySettings } from '../settings';
import type { CredentialCheck } from './credential-check';
import type { LoginGuard } from './login-guard';
import { isStoreUnavailable } from './store-unavailable';

/** The credentials a request carries. */
export interface RequestCredentials {
  /** The session cookie's value, if any. */
  readonly sessionToken?: string;
  /** HTTP Basic credentials, decoded by the HTTP adapter, if the request presented any. */
  readonly credentials?: PresentedCredentials;
  readonly ip: string;
  /** Correlates audit events with the request that caused them. */
  readonly requestId?: string;
}

export type Authentication =
  | { readonly kind: 'session'; readonly identity: Identity; readonly session: Session }
  | { readonly kind: 'basic'; readonly identity: Identity }
  | { readonly kind: 'pending'; readonly session: Session }
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'locked'; readonly retryAfter: number }
  | { readonly kind: 'unavailable' };

const ANONYMOUS: Authentication = { kind: 'anonymous' };
const UNAVAILABLE: Authentication = { kind: 'unavailable' };
/** Providers whose sessions belong to an account in the user store. */
const LOCAL_PROVIDERS: ReadonlySet<string> = new Set(['username', 'ldap']);

/** What OAuth sessions are checked against on every request. */
export interface OAuthSessionRules {
  readonly providers: OAuthProviders;
  readonly whitelist: OAuthWhitelist;
  /** Providers with a whitelist of their own (`OAUTH_PROVIDERS_<ID>_WHITELIST`), which replaces `whitelist` for them. */
  readonly whitelists?: ReadonlyMap<string, OAuthWhitelist>;
}

const NO_OAUTH: OAuthSessionRules = { providers: { get: () => null, ids: () => [] }, whitelist: ANYONE };

/**
 * What sessions of one account object may carry: the fingerprint of its credential and the
 * identities built from it. Stores hand out the same object until a reload (or, for a directory,
 * a re-check), so this is computed once per account version, not per request.
 */
interface AccountView {
  readonly credential: string;
  /** By provider and TOTP flag (`1username`). */
  readonly identities: Map<string, Identity>;
}

/** How many stale session ids are remembered so that each is audited once, not at every retry of its cookie. */
const STALE_AUDITED_MAX = 1000;

/**
 * Finds out who a request comes from: a live, unrevoked session cookie first, else HTTP Basic
 * (refused for TOTP accounts). Shared by every use case that needs the caller's identity.
 */
export class RequestAuthenticator {
  // One Basic identity object per account object: a store that keeps its accounts (USERS) hands
  // out the same identity on every request, so the HTTP adapter can reuse what it built for it.
  private readonly basicIdentities = new WeakMap<Account, Identity>();
  // What sessions of each account version may carry (see currentIdentity).
  private readonly views = new WeakMap<Account, AccountView>();
  private readonly staleAudited = new Set<string>();

  constructor(
    private readonly sealer: SessionSealer,
    private readonly revoked: RevokedSessions,
    private readonly users: UserStore,
    private readonly verified: VerifiedCredentials,
    private readonly guard: LoginGuard,
    private readonly credentials: CredentialCheck,
    private readonly clock: Clock,
    private readonly settings: GatewaySettings,
    private readonly audit: AuditLog,
    private readonly fingerprints: CredentialFingerprints,
    private readonly oauth: OAuthSessionRules = NO_OAUTH,
  ) {}

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

  async authenticate(credentials: RequestCredentials): Promise<Authentication> {
    let session: Session | null;
    try {
      session = await this.session(credentials.sessionToken);
    } catch (e) {
      if (isStoreUnavailable(e)) return UNAVAILABLE;
      throw e;
    }
    if (session !== null) {
      const identity = await this.currentIdentity(session, credentials.requestId);
      if (identity === null) return ANONYMOUS;
      return session.totpPending ? { kind: 'pending', session } : { kind: 'session', identity, session };
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
  private async currentIdentity(session: Session, requestId: string | undefined): Promise<Identity | null> {
    if (!LOCAL_PROVIDERS.has(session.provider)) return session;
    let account: Account | null;
    try {
      account = await this.users.currentAccount(session.username);
    } catch (e) {
      // The session was proven at login; an outage of a remote store must not log everyone out
      // (nor turn every forward-auth answer into a 503). Logins still report the outage.
      if (isStoreUnavailable(e)) return session;
      throw e;
    }
    if (account === null) {
      this.stale(session, 'account_removed', requestId);
      return null;
    }
    const view = this.viewOf(account);
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
    return identity;
  }

  private viewOf(account: Account): AccountView {
    let view = this.views.get(account);
    if (view === undefined) {
      view = { credential: this.fingerprints.of(account), identities: new Map() };
      this.views.set(account, view);
    }
    return view;
  }

  /** Audits a refused session once per session id (its cookie keeps coming until the browser drops it). */
  private stale(session: Session, reason: 'credential_changed' | 'account_removed', requestId: string | undefined): void {
    if (this.staleAudited.has(session.id)) return;
    if (this.staleAudited.size >= STALE_AUDITED_MAX) this.staleAudited.clear();
    this.staleAudited.add(session.id);
    this.audit.record({ event: 'session_stale', username: session.username, reason, requestId });
  }

  private async basic(parsed: PresentedCredentials, ip: string, requestId: string | undefined): Promise<Authentication> {
    const now = this.clock.now();
    const cacheTtl = this.settings.basicCacheTtlMs;
    const key = cacheTtl > 0 ? this.verified.keyFor(parsed) : '';
    try {
      if (cacheTtl > 0) {
        const hit = this.verified.get(key, now);
        if (hit !== null) {
          // Re-read the account: a removed account or changed password must not ride the cache.
          const account = await this.users.findAccount(hit.username);
          if (account !== null && account.credentialVersion === hit.credentialVersion && !hasTotp(account)) {
            // A lock taken since (by any login method) wins over the cache.
            const retryAfter = await this.guard.retryAfter(account.username, ip);
            if (retryAfter > 0) return { kind: 'locked', retryAfter };
            return { kind: 'basic', identity: this.basicIdentity(account) };
          }
          this.verified.forgetUser(hit.username);
        }
      }
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
      return { kind: 'basic', identity: this.basicIdentity(account) };
    } catch (e) {
      if (isStoreUnavailable(e)) return UNAVAILABLE;
      throw e;
    }
  }

  private basicIdentity(account: Account): Identity {
    let identity = this.basicIdentities.get(account);
    if (identity === undefined) {
      identity = Object.freeze(identityOf(account, 'basic', false));
      this.basicIdentities.set(account, identity);
    }
    return identity;
  }
}
