import { validateHeaderValue } from 'node:http';
import { printableHeaderValue } from '../../../src/adapters/http/header-value';

describe('printableHeaderValue', () => {
  it('keeps printable ASCII and Latin-1 as they are', () => {
    expect(printableHeaderValue('Alice Example <alice@example.com>')).toBe('Alice Example <alice@example.com>');
    expect(printableHeaderValue('Zoë Ångström')).toBe('Zoë Ångström');
  });

  it('strips CR and LF, so no header can be injected', () => {
    expect(printableHeaderValue('alice\r\nSet-Cookie: session=stolen')).toBe('aliceSet-Cookie: session=stolen');
  });

  it('strips other control characters, DEL and C1 controls', () => {
    expect(printableHeaderValue('a\u0000b\u0007c\u001bd\u007fe\u0085f\u009fg\tx')).toBe('abcdefgx');
  });

  it('strips characters a header cannot carry (beyond Latin-1, emoji, lone surrogates)', () => {
    expect(printableHeaderValue('Łukasz 🔑 名前 \ud800x')).toBe('ukasz   x');
  });

  it('trims surrounding whitespace and answers an empty string for nothing printable', () => {
    expect(printableHeaderValue('  alice  ')).toBe('alice');
    expect(printableHeaderValue('\r\n\u0000')).toBe('');
  });

  it('always yields a value Node accepts as a header', () => {
    const value = printableHeaderValue('x\u0000\r\n\u2028\u00ff\u0100y');
    expect(value).toBe('x\u00ffy');
    expect(() => validateHeaderValue('remote-name', value)).not.toThrow();
  });
});
