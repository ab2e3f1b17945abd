import { counterMayFollow, knownTransports, parsePasskeyName } from '../../../src/domain/passkey';

describe('counterMayFollow', () => {
  it.each([
    [0, 0, true, 'an authenticator that keeps no counter (always 0)'],
    [0, 1, true, 'a first use that starts counting'],
    [5, 6, true, 'a counter that grows'],
    [5, 100, true, 'a counter that jumps ahead'],
    [5, 5, false, 'a counter that stands still (a copy used the same value)'],
    [5, 4, false, 'a counter that went back (a cloned authenticator)'],
    [5, 0, false, 'a counter that fell to 0 after counting'],
  ])('stored %i, presented %i → %s (%s)', (stored, presented, expected) => {
    expect(counterMayFollow(stored, presented)).toBe(expected);
  });
});

describe('parsePasskeyName', () => {
  it('trims and folds white space', () => {
    expect(parsePasskeyName('  Work \t laptop ')).toEqual({ ok: true, value: 'Work laptop' });
  });

  it.each([[''], ['   '], ['a'.repeat(65)], ['line\nbreak'], ['bell\u0007'], [42], [null], [undefined]])('refuses %p', (raw) => {
    expect(parsePasskeyName(raw)).toEqual({ ok: false, error: { code: 'invalid_name' } });
  });

  it('counts characters, not UTF-16 units', () => {
    expect(parsePasskeyName('🔑'.repeat(64)).ok).toBe(true);
  });
});

describe('knownTransports', () => {
  it('keeps known transports once each and drops the rest', () => {
    expect(knownTransports(['usb', 'internal', 'usb', 'carrier-pigeon', 7])).toEqual(['usb', 'internal']);
    expect(knownTransports(undefined)).toEqual([]);
  });
});
