import { canonicalPath, rawQuery } from '../../../src/domain/canonical-path';

describe('canonicalPath', () => {
  it.each([
    ['/', '/'],
    ['/public/page', '/public/page'],
    ['/public/', '/public/'],
    ['/a/b?x=1', '/a/b'],
    ['/a/b#frag', '/a/b'],
    ['/a/b?x=1#frag', '/a/b'],
    ['/a#x?y', '/a'],
  ])('leaves the plain path of %s as %s', (uri, expected) => {
    expect(canonicalPath(uri)).toBe(expected);
  });

  // Each row is a known way to make a gateway and an upstream disagree about the resource.
  it.each([
    ['encoded slash (lower case)', '/public%2f..%2fadmin', '/admin'],
    ['encoded slash (upper case)', '/public%2F..%2Fadmin', '/admin'],
    ['encoded dot-dot-slash', '/public/..%2fadmin', '/admin'],
    ['encoded dots', '/public/%2e%2e/admin', '/admin'],
    ['mixed-case encoded dots', '/public/%2E%2e/admin', '/admin'],
    ['plain dot-dot', '/public/../admin', '/admin'],
    ['dot-dot above the root', '/../../admin', '/admin'],
    ['single dots', '/./admin/./x', '/admin/x'],
    ['duplicate slashes', '//admin///x', '/admin/x'],
    ['duplicate slashes after a public prefix', '/public//../admin', '/admin'],
    ['backslash as separator', '/public\\..\\admin', '/admin'],
    ['encoded backslash', '/public%5c..%5cadmin', '/admin'],
    ['matrix parameter on a segment', '/admin;/x', '/admin/x'],
    ['matrix parameter with a value', '/admin;jsessionid=1/x', '/admin/x'],
    ['dot-dot with a parameter (Tomcat)', '/public/..;/admin', '/admin'],
    ['encoded semicolon parameter', '/public/..%3b/admin', '/admin'],
    ['fragment hiding the rest', '/admin#/public/', '/admin'],
    ['encoded question mark stays in the path', '/public%3f/../admin', '/admin'],
    ['trailing dot-dot leaves a directory', '/admin/x/..', '/admin/'],
    ['trailing dot leaves a directory', '/admin/.', '/admin/'],
  ])('resolves %s: %s → %s', (_name, uri, expected) => {
    expect(canonicalPath(uri)).toBe(expected);
  });

  it('decodes only once, so a double-encoded slash stays the text %2f', () => {
    expect(canonicalPath('/public/%252f..%252fadmin')).toBe('/public/%2f..%2fadmin');
    expect(canonicalPath('/public/%252e%252e/admin')).toBe('/public/%2e%2e/admin');
  });

  it('keeps the case of the path (matching decides about case)', () => {
    expect(canonicalPath('/Admin/X')).toBe('/Admin/X');
  });

  it.each([
    ['an encoded NUL', '/public/%00/x'],
    ['a raw NUL', '/public/\u0000'],
    ['an encoded newline', '/public%0a/admin'],
    ['broken percent-encoding', '/public/%zz'],
    ['a lone percent sign', '/public/%'],
    ['invalid UTF-8', '/public/%c0%af'],
    ['no leading slash', 'public/x'],
    ['an absolute URL', 'http://evil/x'],
    ['an empty string', ''],
  ])('gives %s no canonical form', (_name, uri) => {
    expect(canonicalPath(uri)).toBeNull();
  });

  it('reads the raw query without the fragment', () => {
    expect(rawQuery('/a?x=1&y=%2f#f')).toBe('x=1&y=%2f');
    expect(rawQuery('/a')).toBe('');
  });
});
