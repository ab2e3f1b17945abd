import { InMemoryLoginAttempts } from '../../../src/adapters/state/in-memory-login-attempts';
import { lockPolicy } from '../../../src/domain/login-failures';
import { protectedDomainOf } from '../../../src/domain/cookie-domain';
import { LoginGuard } from '../../../src/application/services/login-guard';
import type { GatewaySettings } from '../../../src/application/settings';
import { FixedClock, RecordingAuditLog } from '../../support/fakes';

function makeGuard(maxRetries = 3, timeoutSeconds = 60) {
  const clock = new FixedClock();
  const audit = new RecordingAuditLog();
  const settings: GatewaySettings = {
    sessionLifetimeMs: 3_600_000,
    lock: lockPolicy(maxRetries, timeoutSeconds),
    protectedDomain: protectedDomainOf('auth.example.com'),
    basicCacheTtlMs: 0,
  };
  return { clock, audit, guard: new LoginGuard(new InMemoryLoginAttempts(1000), clock, settings, audit) };
}

describe('LoginGuard', () => {
  const ip = '198.51.100.7';

  it('locks the account on the failure that reaches the limit and says so', async () => {
    const { guard } = makeGuard();
    expect(await guard.fail('alice', ip)).toBe(false);
    expect(await guard.fail('alice', ip)).toBe(false);
    expect(await guard.fail('alice', ip)).toBe(true);
    expect(await guard.retryAfter('alice', '192.0.2.1')).toBe(60);
  });

  it('counts down the seconds left on a lock, rounded up', async () => {
    const { guard, clock } = makeGuard();
    for (let i = 0; i < 3; i += 1) await guard.fail('alice', ip);
    clock.advance(30_500);
    expect(await guard.retryAfter('alice', ip)).toBe(30);
    clock.advance(29_499);
    expect(await guard.retryAfter('alice', ip)).toBe(1);
    clock.advance(1);
    expect(await guard.retryAfter('alice', ip)).toBe(0);
  });

  it('records a lock for operators', async () => {
    const { guard, audit } = makeGuard();
    for (let i = 0; i < 3; i += 1) await guard.fail('alice', ip);
    expect(audit.events).toEqual([{ event: 'login_locked', login: 'alice', ip, retryAfter: 60 }]);
  });

  it('locks an address but reports that the account itself is not locked', async () => {
    const { guard } = makeGuard(1);
    for (let i = 0; i < 9; i += 1) await guard.fail(`name-${i}`, ip);
    expect(await guard.retryAfter('alice', ip)).toBe(0);
    expect(await guard.fail('name-9', ip)).toBe(true);
    expect(await guard.retryAfter('alice', ip)).toBe(60);
    expect(await guard.retryAfter('alice', '192.0.2.1')).toBe(0);
  });

  it('clears the account on success but keeps the address count, so one good login does not launder a flood', async () => {
    const { guard } = makeGuard();
    for (let i = 0; i < 29; i += 1) await guard.fail(`name-${i % 10}-${Math.floor(i / 10)}`, ip);
    await guard.fail('alice', ip);
    await guard.succeed('alice');
    expect(await guard.retryAfter('alice', ip)).toBe(60);
  });

  it('forgets account failures after a success', async () => {
    const { guard } = makeGuard();
    await guard.fail('alice', ip);
    await guard.fail('alice', ip);
    await guard.succeed('alice');
    expect(await guard.fail('alice', ip)).toBe(false);
    expect(await guard.fail('alice', ip)).toBe(false);
  });

  it('never locks when locking is disabled', async () => {
    for (const [retries, timeout] of [[0, 60], [3, 0]]) {
      const { guard } = makeGuard(retries, timeout);
      for (let i = 0; i < 100; i += 1) expect(await guard.fail('alice', ip)).toBe(false);
      expect(await guard.retryAfter('alice', ip)).toBe(0);
    }
  });
});
