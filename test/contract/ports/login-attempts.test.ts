import { InMemoryLoginAttempts } from '../../../src/adapters/state/memory/in-memory-login-attempts';
import { loginAttemptsContract } from './login-attempts.contract';

loginAttemptsContract('InMemoryLoginAttempts', () => new InMemoryLoginAttempts(1000));

describe('InMemoryLoginAttempts', () => {
  const now = Date.UTC(2026, 0, 1);
  const fail = (attempts: InMemoryLoginAttempts, key: string, at = now) => attempts.reserve([{ key, maxFailures: 3 }], at, 60_000);

  it('stays within its capacity under a flood of invented keys, dropping the oldest counters', async () => {
    const attempts = new InMemoryLoginAttempts(100);
    for (let i = 0; i < 1000; i += 1) await fail(attempts, `account:bogus-${i}`);
    await fail(attempts, 'account:alice');
    await fail(attempts, 'account:alice');
    // 1001 keys went in; only the newest 100 can be held, and alice is among them.
    expect(await fail(attempts, 'account:alice')).toEqual({ granted: true, locksUntil: [now + 60_000] });
    for (let i = 0; i < 3; i += 1) await fail(attempts, 'account:bogus-0');
    expect(await attempts.lockedUntil('account:bogus-0', now)).toBe(now + 60_000);
  });

  it('says no lock lasts past noLockAfter: nothing before the first lock, then at least every lock it set', async () => {
    const attempts = new InMemoryLoginAttempts(10);
    expect(attempts.noLockAfter()).toBe(0);
    for (let i = 0; i < 3; i += 1) await fail(attempts, 'account:alice');
    expect(attempts.noLockAfter()).toBe(now + 60_000);
    // A lock set earlier but ending sooner (a shorter lock time) does not pull the horizon back.
    for (let i = 0; i < 3; i += 1) await attempts.reserve([{ key: 'address:b', maxFailures: 3 }], now, 1_000);
    expect(await attempts.lockedUntil('address:b', now)).toBe(now + 1_000);
    expect(attempts.noLockAfter()).toBe(now + 60_000);
  });

  it('does not extend a lock when more attempts follow it', async () => {
    const attempts = new InMemoryLoginAttempts(10);
    for (let i = 0; i < 3; i += 1) await fail(attempts, 'k');
    expect(await fail(attempts, 'k', now + 1_000)).toEqual({ granted: false, lockedUntil: now + 60_000 });
    expect(await attempts.lockedUntil('k', now + 1_000)).toBe(now + 60_000);
  });
});
