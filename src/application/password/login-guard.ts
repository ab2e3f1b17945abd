import { accountKey, addressKey, secondsLeft } from '../../domain/login-failures';
import type { Awaitable } from '../ports/awaitable';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { AttemptLimit, LoginAttempts } from './login-attempts';
import type { GatewaySettings } from '../settings';

/** One guess allowed through the lock: it already counts as a failure until settled otherwise. */
export interface GuessTicket {
  readonly login: string;
  readonly ip: string;
  /** The account's limit first, then the address's; empty when locking is disabled. */
  readonly limits: readonly AttemptLimit[];
  /** Per limit, the lock this guess set by reaching it (0: none). */
  readonly locksUntil: readonly number[];
}

export type GuessReservation = { readonly kind: 'granted'; readonly ticket: GuessTicket } | { readonly kind: 'locked'; readonly retryAfter: number };

/**
 * The lock shared by every way of proving a password or code (login, TOTP, HTTP Basic):
 * failures count per account and, with a higher threshold, per client address.
 *
 * A guess is counted before it is checked ({@link reserve}), in the same atomic step as the lock
 * check, so simultaneous guesses cannot all pass a check that none of them has counted yet (see
 * ADR 0003). Each granted ticket must then be settled exactly once: {@link fail},
 * {@link succeed} or {@link refund}.
 */
export class LoginGuard {
  constructor(
    private readonly attempts: LoginAttempts,
    private readonly clock: Clock,
    private readonly settings: GatewaySettings,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Seconds until `login` may try again from `ip`, or 0 when neither is locked (a read; nothing is
   * counted). `now` is the caller's reading of the clock when it has one (a cached Basic request
   * reads it once for the cache and the lock).
   */
  retryAfter(login: string, ip: string, now: number = this.clock.now()): Awaitable<number> {
    const { lock } = this.settings;
    if (lock.maxAccountFailures === 0) return 0;
    // Every cached HTTP Basic request asks (a lock wins over the cache); a store that knows no
    // lock is in force answers at once, without building keys or reading two of them.
    if (this.attempts.noLockAfter !== undefined && now >= this.attempts.noLockAfter()) return 0;
    return this.readLocks(login, ip, now);
  }

  private async readLocks(login: string, ip: string, now: number): Promise<number> {
    const [byAccount, byAddress] = await Promise.all([this.attempts.lockedUntil(accountKey(login), now), this.attempts.lockedUntil(addressKey(ip), now)]);
    const until = Math.max(byAccount, byAddress);
    return until > now ? secondsLeft(until, now) : 0;
  }

  /** Counts one guess of `login` from `ip` as a failure before it is checked, unless either is locked. */
  async reserve(login: string, ip: string): Promise<GuessReservation> {
    const { lock } = this.settings;
    if (lock.maxAccountFailures === 0) return { kind: 'granted', ticket: { login, ip, limits: [], locksUntil: [] } };
    const limits: AttemptLimit[] = [
      { key: accountKey(login), maxFailures: lock.maxAccountFailures },
      { key: addressKey(ip), maxFailures: lock.maxAddressFailures },
    ];
    const now = this.clock.now();
    const reservation = await this.attempts.reserve(limits, now, lock.lockMs);
    if (!reservation.granted) return { kind: 'locked', retryAfter: secondsLeft(reservation.lockedUntil, now) };
    return { kind: 'granted', ticket: { login, ip, limits, locksUntil: reservation.locksUntil } };
  }

  /**
   * The guess was wrong: its reservation stands as the failure. Records a lock it caused for
   * operators; true when it locked the account.
   */
  fail(ticket: GuessTicket, requestId?: string): boolean {
    const until = Math.max(0, ...ticket.locksUntil);
    if (until === 0) return false;
    this.audit.record({ event: 'login_locked', login: ticket.login, ip: ticket.ip, retryAfter: secondsLeft(until, this.clock.now()), requestId });
    return ticket.locksUntil[0] > 0;
  }

  /**
   * The guess was right: clears the account's failures and gives the address its reservation back
   * (the address keeps its other failures: one good account must not launder a flood).
   */
  async succeed(ticket: GuessTicket): Promise<void> {
    if (ticket.limits.length === 0) return;
    await Promise.all([this.attempts.reset(ticket.limits[0].key), this.attempts.refund(ticket.limits.slice(1), this.clock.now())]);
  }

  /**
   * The guess was not checked, or its outcome never reached the client (the store was down, the
   * hasher busy, the account gone): gives the reservation back. Best effort: when the lock state
   * itself cannot be reached, the reservation stays counted (closed).
   */
  async refund(ticket: GuessTicket): Promise<void> {
    if (ticket.limits.length === 0) return;
    await this.attempts.refund(ticket.limits, this.clock.now()).catch(() => undefined);
  }
}
