import { MIN_PASSWORD_LENGTH, weakPasswordReason } from '../../../src/domain/password-strength';

describe('weakPasswordReason', () => {
  const context = { username: 'alexander-the-great', current: 'the current passphrase' };

  it('accepts a long password that is none of the refused kinds', () => {
    expect(weakPasswordReason('correct horse battery', context)).toBeNull();
    expect(weakPasswordReason('x'.repeat(MIN_PASSWORD_LENGTH - 1) + 'y', context)).toBeNull();
  });

  it('counts characters, not bytes: eleven accented letters are too short, twelve are enough', () => {
    expect(weakPasswordReason('é'.repeat(10) + 'ab', context)).toBeNull();
    expect(weakPasswordReason('é'.repeat(10) + 'a', context)).toBe('too_short');
  });

  it('refuses the username in any case, the current password, a common password and one repeated character', () => {
    expect(weakPasswordReason('Alexander-The-Great', context)).toBe('same_as_username');
    expect(weakPasswordReason('the current passphrase', context)).toBe('same_as_current');
    expect(weakPasswordReason('QWERTY123456', context)).toBe('common');
    expect(weakPasswordReason('9'.repeat(20), context)).toBe('common');
  });

  it('refuses more than 72 bytes (what bcrypt reads), counted in UTF-8', () => {
    expect(weakPasswordReason('ab'.repeat(36), context)).toBeNull();
    expect(weakPasswordReason('ab'.repeat(36) + 'c', context)).toBe('too_long');
    expect(weakPasswordReason('éa'.repeat(24), context)).toBeNull();
    expect(weakPasswordReason('éa'.repeat(24) + 'b', context)).toBe('too_long');
  });

  it('checks the username and current password only when they are known (an invitation knows neither)', () => {
    expect(weakPasswordReason('correct horse battery')).toBeNull();
    expect(weakPasswordReason('aaaaaaaaaaaaaaaa')).toBe('common');
  });
});
