import { hasTotp, localAccountEmail } from '../../../src/domain/account';
import { identityOf, isActive, TOTP_PENDING_LIFETIME_MS, type Session } from '../../../src/domain/session';
import { aUser } from '../../support/builders';

const session = (issuedAt: number, expiresAt: number): Session => ({
  ...identityOf(aUser().build(), 'username', false),
  id: 's',
  issuedAt,
  expiresAt,
  totpPending: false,
  proven: {},
});

describe('isActive', () => {
  const now = Date.UTC(2026, 0, 1);

  it('holds from issue until just before expiry', () => {
    expect(isActive(session(now, now + 1_000), now)).toBe(true);
    expect(isActive(session(now - 5_000, now + 1), now)).toBe(true);
  });

  it('ends at the expiry instant', () => {
    expect(isActive(session(now - 5_000, now), now)).toBe(false);
  });

  it('tolerates a minute of clock skew between instances, but no session from further in the future', () => {
    expect(isActive(session(now + 60_000, now + 120_000), now)).toBe(true);
    expect(isActive(session(now + 60_001, now + 120_000), now)).toBe(false);
  });
});

describe('identityOf', () => {
  it('copies who the account is and records how they proved it', () => {
    const account = aUser().named('bob').withEmail('bob@corp.test').withGroups('admins').build();
    expect(identityOf(account, 'basic', false)).toEqual({
      username: 'bob',
      name: 'bob',
      email: 'bob@corp.test',
      groups: ['admins'],
      provider: 'basic',
      oauth: false,
      totp: false,
    });
  });
});

describe('accounts', () => {
  it('has a TOTP second factor only with a non-empty secret', () => {
    expect(hasTotp(aUser().withTotp().build())).toBe(true);
    expect(hasTotp(aUser().build())).toBe(false);
    expect(hasTotp({ ...aUser().build(), totpSecret: '' })).toBe(false);
  });

  it('derives a local e-mail from the domain unless the username already is one', () => {
    expect(localAccountEmail('Alice', 'example.com')).toBe('alice@example.com');
    expect(localAccountEmail('Carol@Example.org', 'example.com')).toBe('carol@example.org');
  });

  it('keeps the TOTP pending window at ten minutes or less', () => {
    expect(TOTP_PENDING_LIFETIME_MS).toBeLessThanOrEqual(10 * 60 * 1000);
  });
});
