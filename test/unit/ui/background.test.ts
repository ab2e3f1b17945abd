import { cssUrl } from '../../../ui/src/background';

/** What a CSS parser reads inside the quotes: each `\hex ` escape back to its character. */
function cssUnescape(inner: string): string {
  return inner.replace(/\\([0-9a-f]{1,6}) /g, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)));
}

describe('cssUrl', () => {
  it('quotes an http(s) URL or a path on this host', () => {
    expect(cssUrl('https://images.example.test/bg.jpg?v=2')).toBe('url("https://images.example.test/bg.jpg?v=2")');
    expect(cssUrl('/assets/bg.png')).toBe('url("/assets/bg.png")');
  });

  it('is null for none, another scheme, or another origin without a scheme', () => {
    for (const value of ['', 'javascript:alert(1)', 'data:image/png;base64,AAAA', '//evil.test/x.png', 'bg.png', ' https://x.test/']) {
      expect(cssUrl(value)).toBeNull();
    }
  });

  it('escapes every character that could end the string or the declaration, and reads back as the same text', () => {
    const hostile = '/bg.png");}body{background:red;x:url("\\\n\'<>() ';
    const url = cssUrl(hostile) ?? '';
    expect(url.startsWith('url("') && url.endsWith('")')).toBe(true);
    const inner = url.slice('url("'.length, -'")'.length);
    expect(inner.replace(/\\[0-9a-f]{1,6} /g, '')).toMatch(/^[A-Za-z0-9\-._~:/?#@!$&*+,;=%]*$/);
    expect(cssUnescape(inner)).toBe(hostile);
  });
});
