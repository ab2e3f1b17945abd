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

  it('refuses more than 1024 characters', () => {
    expect(weakPasswordReason('ab'.repeat(513), context)).toBe('too_long');
  });
});
