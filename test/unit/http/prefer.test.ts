import { prefersMinimalReturn } from '../../../src/adapters/http/prefer';

describe('prefersMinimalReturn (Prefer, RFC 7240)', () => {
  it.each<[string | string[] | undefined, boolean]>([
    [undefined, false],
    ['', false],
    ['return=minimal', true],
    ['Return=minimal', true],
    [' return = "minimal" ', true],
    ['return=minimal; foo=bar', true],
    ['respond-async, wait=100, return=minimal', true],
    [['wait=5', 'return=minimal'], true],
    ['return=Minimal', false],
    ['return=representation', false],
    ['return=minimal, return=representation', false],
    [['return=minimal', 'return=representation'], false],
    ['return', false],
    ['return=', false],
    ['return="minimal', false],
    ['returns=minimal', false],
    ['x-return=minimal', false],
    ['wait=10', false],
    [`${'x'.repeat(600)}, return=minimal`, false],
  ])('%j → %s', (header, minimal) => {
    expect(prefersMinimalReturn(header)).toBe(minimal);
  });
});
