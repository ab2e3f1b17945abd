import { isIdle, lastUseGranularityMs, latestExpiry, periodOf, renewedExpiry, renewableUntilOf } from '../../../src/domain/session-lifetime';

const H = 3600_000;
const LIFETIMES = { lifetimeMs: 8 * H, rememberMs: 30 * 24 * H };

describe('idle sessions', () => {
  it('a session is idle once unused for the whole timeout, not a millisecond before', () => {
    expect(isIdle(1000, 10_000, 10_999)).toBe(false);
    expect(isIdle(1000, 10_000, 11_000)).toBe(true);
  });

  it('no timeout: a session is never idle', () => {
    expect(isIdle(0, 0, 10 * 365 * 24 * H)).toBe(false);
  });

  it('last use is kept to a quarter of the timeout, between a second and a minute', () => {
    expect(lastUseGranularityMs(0)).toBe(60_000);
    expect(lastUseGranularityMs(2000)).toBe(1000);
    expect(lastUseGranularityMs(120_000)).toBe(30_000);
    expect(lastUseGranularityMs(3600_000)).toBe(60_000);
  });
});

describe('renewal', () => {
  const issuedAt = 1_000_000;
  const session = { expiresAt: issuedAt + 8 * H, renewableUntil: issuedAt + 24 * H, totpPending: false };

  it('is not renewed while more than half its period is left', () => {
    expect(renewedExpiry(session, LIFETIMES, issuedAt + 3 * H)).toBeNull();
    expect(renewedExpiry(session, LIFETIMES, issuedAt + 4 * H)).toBe(issuedAt + 12 * H);
  });

  it('gets a whole period from now, never past its bound', () => {
    expect(renewedExpiry({ ...session, expiresAt: issuedAt + 20 * H }, LIFETIMES, issuedAt + 19 * H)).toBe(issuedAt + 24 * H);
  });

  it('is no longer renewed at its bound', () => {
    expect(renewedExpiry({ ...session, expiresAt: issuedAt + 24 * H }, LIFETIMES, issuedAt + 23 * H)).toBeNull();
  });

  it('a session made without a bound, or still owing a code, is never renewed', () => {
    expect(renewedExpiry({ expiresAt: issuedAt + 8 * H, totpPending: false }, LIFETIMES, issuedAt + 7 * H)).toBeNull();
    expect(renewedExpiry({ ...session, totpPending: true }, LIFETIMES, issuedAt + 7 * H)).toBeNull();
  });

  it('a remembered session is renewed for REMEMBER_ME_EXPIRY', () => {
    const remembered = { ...session, remember: true as const, expiresAt: issuedAt + 30 * 24 * H, renewableUntil: issuedAt + 90 * 24 * H };
    expect(periodOf(remembered, LIFETIMES)).toBe(30 * 24 * H);
    expect(renewedExpiry(remembered, LIFETIMES, issuedAt + 20 * 24 * H)).toBe(issuedAt + 50 * 24 * H);
    expect(periodOf(remembered, { lifetimeMs: 8 * H, rememberMs: 0 })).toBe(8 * H);
  });

  it('the bound is the login time plus SESSION_MAX_LIFETIME, none when it is off', () => {
    expect(renewableUntilOf(issuedAt, 24 * H)).toBe(issuedAt + 24 * H);
    expect(renewableUntilOf(issuedAt, 0)).toBeUndefined();
  });

  it('a revocation must last until the bound, not the current expiry', () => {
    expect(latestExpiry(session)).toBe(issuedAt + 24 * H);
    expect(latestExpiry({ expiresAt: issuedAt + 8 * H })).toBe(issuedAt + 8 * H);
  });
});
