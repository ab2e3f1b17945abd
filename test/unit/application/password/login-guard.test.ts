import { InMemoryLoginAttempts } from '../../../../src/adapters/state/memory/in-memory-login-attempts';
import { lockPolicy } from '../../../../src/domain/login-failures';
import { protectedDomainOf } from '../../../../src/domain/cookie-domain';
import { registrableDomainOf } from '../../../support/public-suffixes';
import { LoginGuard, type GuessTicket } from '../../../../src/application/password/login-guard';
import type { GatewaySettings } from '../../../../src/application/settings';
import { FixedClock, RecordingAuditLog } from '../../../support/fakes';

function makeGuard(maxRetries = 3, timeoutSeconds = 60) {
  const clock = new FixedClock();
  const audit = new RecordingAuditLog();
  const settings: GatewaySettings = {
    sessionLifetimeMs: 3_600_000,
    lock: lockPolicy(maxRetries, timeoutSeconds),
    protectedDomain: protectedDomainOf('auth.example.com', registrableDomainOf),
    basicCacheTtlMs: 0,
  };
  const guard = new LoginGuard(new InMemoryLoginAttempts(1000), clock, settings, audit);
  /** One wrong guess: reserved, then failed; resolves whether it locked the account, or 'refused'. */
  const wrong = async (login: string, ip: string): Promise<boolean | 'refused'> => {
    const r = await guard.reserve(login, ip);
    return r.kind === 'locked' ? 'refused' : guard.fail(r.ticket);
  };
  const ticket = async (login: string, ip: string): Promise<GuessTicket> => {
    const r = await guard.reserve(login, ip);
    if (r.kind === 'locked') throw new Error('locked');
    return r.ticket;
  };
  return { clock, audit, guard, wrong, ticket };
}

describe('LoginGuard', () => {
  const ip = '198.51.100.7';

  it('locks the account on the failure that reaches the limit and says so', async () => {
    const { guard, wrong } = makeGuard();
    expect(await wrong('alice', ip)).toBe(false);
    expect(await wrong('alice', ip)).toBe(false);
    expect(await wrong('alice', ip)).toBe(true);
    expect(await guard.retryAfter('alice', '192.0.2.1')).toBe(60);
    expect(await guard.reserve('alice', '192.0.2.1')).toEqual({ kind: 'locked', retryAfter: 60 });
  });

  it('counts a guess before it is checked: reservations still being checked use up the limit', async () => {
    const { guard, ticket } = makeGuard();
    for (let i = 0; i < 3; i += 1) await ticket('alice', ip);
    expect(await guard.reserve('alice', '192.0.2.1')).toEqual({ kind: 'locked', retryAfter: 60 });
  });

  it('counts down the seconds left on a lock, rounded up', async () => {
    const { guard, clock, wrong } = makeGuard();
    for (let i = 0; i < 3; i += 1) await wrong('alice', ip);
    clock.advance(30_500);
    expect(await guard.retryAfter('alice', ip)).toBe(30);
    clock.advance(29_499);
    expect(await guard.retryAfter('alice', ip)).toBe(1);
    clock.advance(1);
    expect(await guard.retryAfter('alice', ip)).toBe(0);
  });

  it('reads a lock at the time its caller read the clock, when given one', async () => {
    const { guard, clock, wrong } = makeGuard();
    for (let i = 0; i < 3; i += 1) await wrong('alice', ip);
    const readBefore = clock.now();
    clock.advance(60_000);
    expect(await guard.retryAfter('alice', ip)).toBe(0);
    expect(await guard.retryAfter('alice', ip, readBefore + 45_000)).toBe(15);
  });

  it('records a lock for operators when the guess that set it fails', async () => {
    const { audit, wrong } = makeGuard();
    for (let i = 0; i < 3; i += 1) await wrong('alice', ip);
    expect(audit.events).toEqual([{ event: 'login_locked', login: 'alice', ip, retryAfter: 60 }]);
  });

  it('locks an address but reports that the account itself is not locked', async () => {
    const { guard, wrong } = makeGuard(1);
    for (let i = 0; i < 9; i += 1) await wrong(`name-${i}`, ip);
    expect(await guard.retryAfter('alice', ip)).toBe(0);
    expect(await wrong('name-9', ip)).toBe(true);
    expect(await guard.retryAfter('alice', ip)).toBe(60);
    expect(await guard.retryAfter('alice', '192.0.2.1')).toBe(0);
  });

  it('clears the account on success but keeps the address count, so one good login does not launder a flood', async () => {
    const { guard, wrong, ticket } = makeGuard();
    for (let i = 0; i < 29; i += 1) await wrong(`name-${i % 10}-${Math.floor(i / 10)}`, ip);
    await guard.succeed(await ticket('alice', ip));
    expect(await wrong('alice', ip)).toBe(false);
    expect(await guard.retryAfter('alice', ip)).toBe(60);
  });

  it('forgets account failures after a success', async () => {
    const { guard, wrong, ticket } = makeGuard();
    await wrong('alice', ip);
    await wrong('alice', ip);
    await guard.succeed(await ticket('alice', ip));
    expect(await wrong('alice', ip)).toBe(false);
    expect(await wrong('alice', ip)).toBe(false);
  });

  it('gives back a guess that was never checked, lifting the lock it set', async () => {
    const { guard, wrong, ticket } = makeGuard();
    await wrong('alice', ip);
    await wrong('alice', ip);
    await guard.refund(await ticket('alice', ip));
    expect(await guard.retryAfter('alice', ip)).toBe(0);
    expect(await wrong('alice', ip)).toBe(true);
  });

  it('never locks when locking is disabled', async () => {
    for (const [retries, timeout] of [
      [0, 60],
      [3, 0],
    ]) {
      const { guard, wrong } = makeGuard(retries, timeout);
      for (let i = 0; i < 100; i += 1) expect(await wrong('alice', ip)).toBe(false);
      expect(await guard.retryAfter('alice', ip)).toBe(0);
    }
  });
});
