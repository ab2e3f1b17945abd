import type { Account } from '../../domain/account';
import { isLiveToken, isTokenShaped, tokenRevocationId, type AccessTokenRecord } from '../../domain/access-token';
import { identityOf, type Identity } from '../../domain/session';
import type { AuditLog } from '../ports/audit-log';
import { isPending, type Awaitable } from '../ports/awaitable';
import type { Clock } from '../ports/clock';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { UserStore } from '../ports/user-store';
import type { LoginGuard } from '../password/login-guard';
import { isStoreUnavailable } from '../store-unavailable';
import type { AccessTokens } from './access-tokens';
import type { TokenSecrets } from './token-secrets';

/** What checking a presented token found. */
export type TokenAuthentication =
  | { readonly kind: 'token'; readonly identity: Identity }
  | { readonly kind: 'invalid_token' }
  | { readonly kind: 'locked'; readonly retryAfter: number }
  | { readonly kind: 'unavailable' };

/** Why a token was refused, for the audit (never the token itself). */
export type TokenRefusal = 'malformed' | 'unknown' | 'expired' | 'revoked' | 'account_removed';

export interface TokenAuthenticatorParts {
  readonly tokens: AccessTokens;
  readonly secrets: TokenSecrets;
  /** Where a token's revocation is replicated (tokenRevocationId), answered from memory. */
  readonly revoked: RevokedSessions;
  readonly users: UserStore;
  /** Wrong tokens count per client address like wrong passwords. */
  readonly guard: LoginGuard;
  readonly clock: Clock;
  readonly audit: AuditLog;
}

/** A token this process has read from the store, with the id its revocation travels under. */
interface KnownToken {
  readonly record: AccessTokenRecord;
  readonly revocationId: string;
}

const INVALID: TokenAuthentication = Object.freeze({ kind: 'invalid_token' });
const UNAVAILABLE: TokenAuthentication = Object.freeze({ kind: 'unavailable' });
/** Records kept in memory after their first use: a token is read from the store once per process. */
const KNOWN_MAX = 10_000;
/** Uses noted between two writes of "last used". */
const USED_MAX = 10_000;

/** The login name wrong tokens from one address are counted under (never an account's name: it has a '#'). */
const guessesFrom = (ip: string): string => `#token@${ip}`;

/**
 * Finds out whose access token a request presents (issue 32). A token is looked up by the keyed
 * hash of its secret once per process and kept in memory (bounded); every request then checks,
 * from memory, that it is unexpired, not revoked on any replica (the session revocations, under
 * tokenRevocationId) and that its account still exists, and speaks with the account's current
 * name, e-mail and groups. Wrong tokens count toward the client address's lock.
 */
export class TokenAuthenticator {
  // Keyed by the token as presented, like the sealer's memo of opened cookies: a known token costs
  // one Map lookup, not a keyed hash, per request (bench scenario 2b). Bounded; emptied when full.
  private readonly known = new Map<string, KnownToken>();
  private readonly identities = new WeakMap<Account, Map<string, Identity>>();
  private used = new Map<string, number>();
  private readonly tokens: AccessTokens;
  private readonly secrets: TokenSecrets;
  private readonly revoked: RevokedSessions;
  private readonly users: UserStore;
  private readonly guard: LoginGuard;
  private readonly clock: Clock;
  private readonly audit: AuditLog;

  constructor(parts: TokenAuthenticatorParts) {
    ({ tokens: this.tokens, secrets: this.secrets, revoked: this.revoked, users: this.users } = parts);
    ({ guard: this.guard, clock: this.clock, audit: this.audit } = parts);
  }

  /** Answers at once for a token this process has seen, when every store it asks answers at once. */
  authenticate(token: string, ip: string, requestId?: string): Awaitable<TokenAuthentication> {
    try {
      const known = this.known.get(token);
      if (known !== undefined) return this.withRecord(known, ip, requestId);
      if (!isTokenShaped(token)) return this.refuse('malformed', ip, requestId);
      return this.firstUse(token, ip, requestId).catch(unavailableOrThrow);
    } catch (e) {
      return unavailableOrThrow(e);
    }
  }

  /** "Last used" noted since the last call, for the store (written in batches). */
  takeUses(): ReadonlyMap<string, number> {
    const taken = this.used;
    this.used = new Map();
    return taken;
  }

  /** Writes the noted uses to the store. */
  async flush(): Promise<void> {
    const uses = this.takeUses();
    if (uses.size > 0) await this.tokens.touch(uses);
  }

  /** A token not seen by this process: the lock is asked and the guess counted before the store is read. */
  private async firstUse(token: string, ip: string, requestId: string | undefined): Promise<TokenAuthentication> {
    const hash = this.secrets.hashOf(token);
    const reservation = await this.guard.reserve(guessesFrom(ip), ip);
    if (reservation.kind === 'locked') return { kind: 'locked', retryAfter: reservation.retryAfter };
    let record: AccessTokenRecord | null;
    try {
      record = await this.tokens.findByHash(hash);
    } catch (e) {
      await this.guard.refund(reservation.ticket);
      return unavailableOrThrow(e);
    }
    if (record === null) {
      this.guard.fail(reservation.ticket, requestId);
      this.audit.record({ event: 'token_refused', reason: 'unknown', ip, requestId });
      return INVALID;
    }
    await this.guard.refund(reservation.ticket);
    if (this.known.size >= KNOWN_MAX) this.known.clear();
    const known: KnownToken = { record, revocationId: tokenRevocationId(record.id) };
    this.known.set(token, known);
    const answer = await this.withRecord(known, ip, requestId);
    if (answer.kind === 'token') this.audit.record({ event: 'login_succeeded', username: record.username, method: 'token', ip, requestId });
    return answer;
  }

  private withRecord({ record, revocationId }: KnownToken, ip: string, requestId: string | undefined): Awaitable<TokenAuthentication> {
    const now = this.clock.now();
    if (!isLiveToken(record, now)) return this.refuse(record.revokedAt === null ? 'expired' : 'revoked', ip, requestId, record);
    const revoked = this.revoked.isRevoked(revocationId);
    if (isPending(revoked)) return revoked.then((r) => this.unlessRevoked(r, record, ip, requestId, now), unavailableOrThrow);
    return this.unlessRevoked(revoked, record, ip, requestId, now);
  }

  private unlessRevoked(revoked: boolean, record: AccessTokenRecord, ip: string, requestId: string | undefined, now: number): Awaitable<TokenAuthentication> {
    if (revoked) return this.refuse('revoked', ip, requestId, record);
    const account = this.users.currentAccount(record.username);
    if (isPending(account)) return account.then((a) => this.asAccount(a, record, ip, requestId, now), unavailableOrThrow);
    return this.asAccount(account, record, ip, requestId, now);
  }

  /** The token speaks for its account as it is now; a removed account's tokens stop at once. */
  private asAccount(account: Account | null, record: AccessTokenRecord, ip: string, requestId: string | undefined, now: number): TokenAuthentication {
    if (account === null) return this.refuse('account_removed', ip, requestId, record);
    if (this.used.size < USED_MAX || this.used.has(record.hash)) this.used.set(record.hash, now);
    let byToken = this.identities.get(account);
    if (byToken === undefined) {
      byToken = new Map();
      this.identities.set(account, byToken);
    }
    let identity = byToken.get(record.id);
    if (identity === undefined) {
      identity = Object.freeze({ ...identityOf(account, 'token', false), token: Object.freeze({ id: record.id, apps: record.apps }) });
      byToken.set(record.id, identity);
    }
    return { kind: 'token', identity };
  }

  private refuse(reason: TokenRefusal, ip: string, requestId: string | undefined, record?: AccessTokenRecord): TokenAuthentication {
    this.audit.record({ event: 'token_refused', reason, ip, requestId, ...(record === undefined ? {} : { username: record.username, tokenId: record.id }) });
    return INVALID;
  }
}

function unavailableOrThrow(e: unknown): TokenAuthentication {
  if (isStoreUnavailable(e)) return UNAVAILABLE;
  throw e;
}
