import { accountKey, addressKey, lockPolicy, secondsLeft } from '../../../src/domain/login-failures';

describe('lockPolicy', () => {
  it('locks an account after the configured failures and an address after ten times as many', () => {
    expect(lockPolicy(5, 300)).toEqual({ maxAccountFailures: 5, maxAddressFailures: 50, lockMs: 300_000 });
  });

  it('is disabled entirely when either the retries or the timeout is 0', () => {
    const off = { maxAccountFailures: 0, maxAddressFailures: 0, lockMs: 0 };
    expect(lockPolicy(0, 300)).toEqual(off);
    expect(lockPolicy(5, 0)).toEqual(off);
  });

  it('locks on the first failure when retries is 1', () => {
    expect(lockPolicy(1, 60)).toEqual({ maxAccountFailures: 1, maxAddressFailures: 10, lockMs: 60_000 });
  });
});

describe('failure keys', () => {
  it('folds case and surrounding spaces of account names, so one account has one lock', () => {
    expect(accountKey(' Alice ')).toBe(accountKey('alice'));
    expect(accountKey('ALICE@Example.com')).toBe(accountKey('alice@example.com'));
  });

  it('keeps accounts and addresses in separate namespaces', () => {
    expect(accountKey('10.0.0.1')).not.toBe(addressKey('10.0.0.1'));
    expect(addressKey('2001:db8::1')).toBe('address:2001:db8:0:0::/64');
  });

  it('counts addresses per block: an IPv6 /64 is one client, an IPv4 address is one', () => {
    expect(addressKey('2001:db8:1:2::7')).toBe(addressKey('2001:db8:1:2:ffff:1:2:3'));
    expect(addressKey('2001:db8:1:2::7')).not.toBe(addressKey('2001:db8:1:3::7'));
    expect(addressKey('198.51.100.7')).not.toBe(addressKey('198.51.100.8'));
    expect(addressKey('::ffff:198.51.100.7')).toBe(addressKey('198.51.100.7'));
  });
});

describe('secondsLeft', () => {
  it('rounds up, so a client never retries a moment too early', () => {
    expect(secondsLeft(10_001, 0)).toBe(11);
    expect(secondsLeft(10_000, 0)).toBe(10);
    expect(secondsLeft(60_000, 59_999)).toBe(1);
  });

  it('never answers less than one second', () => {
    expect(secondsLeft(1_000, 1_000)).toBe(1);
    expect(secondsLeft(0, 5_000)).toBe(1);
  });
});
