import { didYouMean, editDistance, nearMiss } from '../../../src/domain/near-miss';

describe('near misses: the known word a typo most likely meant', () => {
  it('counts inserts, deletes, replacements and a swapped pair as one edit each', () => {
    expect(editDistance('PORT', 'PORT')).toBe(0);
    expect(editDistance('PROT', 'PORT')).toBe(1);
    expect(editDistance('sesions', 'sessions')).toBe(1);
    expect(editDistance('APP_ULR', 'APP_URL')).toBe(1);
    expect(editDistance('a', 'abcdef')).toBe(3);
  });

  it('allows two edits for a long word and one for a short one, and never names the word itself', () => {
    expect(nearMiss('--data-dri', ['--data-dir', '--help'])).toBe('--data-dir');
    expect(nearMiss('PORTS', ['PORT'])).toBe('PORT');
    expect(nearMiss('PRTS', ['PORT'])).toBeUndefined();
    expect(nearMiss('config chek', ['config check', 'user add'])).toBe('config check');
    expect(nearMiss('serve', ['serve'])).toBeUndefined();
  });

  it('words the hint for a message, or nothing', () => {
    expect(didYouMean('sesions', ['sessions', 'passkeys'])).toBe(': did you mean sessions?');
    expect(didYouMean('frobnicate', ['sessions'])).toBe('');
  });
});
