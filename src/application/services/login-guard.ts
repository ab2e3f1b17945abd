import { accountKey, addressKey, secondsLeft } from '../../domain/login-failures';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { LoginAttempts } from '../ports/login-attempts';
import type { GatewaySettings } from '../settings';

/**
 * The lock shared by every way of proving a password or code (login, TOTP, HTTP Basic):
 * failures count per account and, with a higher threshold, per client address.
 */
export class LoginGuard {
  constructor(
    private readonly attempts: LoginAttempts,
    private readonly clock: Clock,
    private readonly settings: GatewaySettings,
    private readonly audit: AuditLog,
  ) {}

  /** Seconds until `login` may try again from `ip`, or 0 when neither is locked. */
  async retryAfter(login: string, ip: string): Promise<number> {
    const { lock } = this.settings;
    if (lock.maxAccountFailures === 0) return 0;
    const now = this.clock.now();
    const [byAccount, byAddress] = await Promise.all([
      this.attempts.lockedUntil(accountKey(login), now),
      this.attempts.lockedUntil(addressKey(ip), now),
    ]);
    const until = Math.max(byAccount, byAddress);
    return until > now ? secondsLeft(until, now) : 0;
  }

  /** Counts a failure against both the account and the address; resolves true when that locked the account. */
  async fail(login: string, ip: string, requestId?: string): Promise<boolean> {
    const { lock } = this.settings;
    if (lock.maxAccountFailures === 0) return false;
    const now = this.clock.now();
    const [byAccount, byAddress] = await Promise.all([
      this.attempts.recordFailure(accountKey(login), now, lock.maxAccountFailures, lock.lockMs),
      this.attempts.recordFailure(addressKey(ip), now, lock.maxAddressFailures, lock.lockMs),
    ]);
    const until = Math.max(byAccount, byAddress);
    if (until > now) {
      this.audit.record({ event: 'login_locked', login, ip, retryAfter: secondsLeft(until, now), requestId });
      return byAccount > now;
    }
    return false;
  }

  /** Clears the account's failures after a success (the address keeps its count: one good account must not launder a flood). */
  async succeed(login: string): Promise<void> {
    if (this.settings.lock.maxAccountFailures === 0) return;
    await this.attempts.reset(accountKey(login));
  }
}
