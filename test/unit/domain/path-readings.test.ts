import { plainPath, rawQuery, readPath } from '../../../src/domain/path-readings';

const readings = (uri: string): readonly string[] => {
  const r = readPath(uri);
  if (r.kind !== 'readings') throw new Error(`expected readings of ${uri}, got ${JSON.stringify(r)}`);
  return r.paths;
};

describe('readPath', () => {
  it.each([
    ['/', '/'],
    ['/public/page', '/public/page'],
    ['/public/', '/public/'],
    ['/a/b?x=1', '/a/b'],
    ['/a/b?x=/../admin#f', '/a/b'],
    ['/.well-known/x', '/.well-known/x'],
    ['/a..b/...', '/a..b/...'],
  ])('reads the plain path of %s one way only: %s', (uri, expected) => {
    expect(readings(uri)).toEqual([expected]);
  });

  it('finds the one reading of a plain path without building anything', () => {
    expect(plainPath('/public/page')).toBe('/public/page');
    expect(plainPath('/public/page?x=1')).toBe('/public/page');
    for (const uri of ['/a;b', '/a%20b', '/a//b', '/./a', '/a\\b', 'a', '']) expect(plainPath(uri)).toBeNull();
  });

  // Each row is a path nginx and caddy forward as it is while Koa or Flask serve another resource
  // than a normalising gateway would judge: refused, never decided.
  it.each([
    ['dot-dot with a parameter (Tomcat)', '/admin/..;/public/x'],
    ['encoded dot-dot', '/admin/%2e%2e/public/x'],
    ['mixed-case encoded dot-dot', '/admin/%2E%2e/public/x'],
    ['half-encoded dot-dot', '/admin/.%2e/public/x'],
    ['dot-dot and an encoded slash', '/admin/..%2fpublic/x'],
    ['dot-dot and an encoded backslash', '/admin/..%5cpublic/x'],
    ['plain dot-dot', '/admin/../public/x'],
    ['trailing dot-dot', '/public/x/..'],
    ['single dot', '/./admin'],
    ['trailing single dot', '/admin/.'],
    ['single dot with a parameter', '/admin/.;x/y'],
    ['dot-dot with an encoded semicolon', '/public/..%3b/admin'],
    ['encoded slash', '/public%2fadmin'],
    ['encoded slash (upper case)', '/public%2Fadmin'],
    ['encoded backslash', '/public%5Cadmin'],
    ['raw backslash', '/public\\admin'],
    ['double-encoded dots', '/public/%252e%252e/admin'],
    ['double-encoded slash', '/public/%252fadmin'],
    ['a fragment inside the path', '/admin#/public/'],
  ])('refuses %s (%s) as ambiguous', (_name, uri) => {
    expect(readPath(uri)).toMatchObject({ kind: 'ambiguous' });
  });

  it('says why a path is ambiguous', () => {
    expect(readPath('/admin/..;/public/x')).toEqual({ kind: 'ambiguous', why: 'a dot-segment' });
    expect(readPath('/a%2fb')).toEqual({ kind: 'ambiguous', why: 'an encoded slash or backslash' });
    expect(readPath('/a\\b')).toEqual({ kind: 'ambiguous', why: 'a backslash' });
    expect(readPath('/a/%252e%252e/b')).toEqual({ kind: 'ambiguous', why: 'a double-encoded dot, slash or backslash' });
    expect(readPath('/a#b')).toEqual({ kind: 'ambiguous', why: 'a fragment in the path' });
  });

  // What is left can be read in a few ways, all of them kept: the caller takes the strictest.
  it.each([
    ['matrix parameter', '/admin;x/y', ['/admin;x/y', '/admin/y']],
    ['parameter with a value', '/admin;jsessionid=1', ['/admin;jsessionid=1', '/admin']],
    ['duplicate slashes', '/public//page', ['/public//page', '/public/page']],
    ['encoded letters', '/%61dmin', ['/%61dmin', '/admin']],
    ['encoded semicolon', '/admin%3bx/y', ['/admin%3bx/y', '/admin;x/y', '/admin/y']],
    ['an encoded dot inside a name', '/file%2etxt', ['/file%2etxt', '/file.txt']],
    ['everything at once', '/%61;x//b', ['/%61;x//b', '/%61;x/b', '/%61//b', '/%61/b', '/a;x//b', '/a;x/b', '/a//b', '/a/b']],
  ])('keeps every reading of a %s: %s', (_name, uri, expected) => {
    expect([...readings(uri)].sort()).toEqual([...expected].sort());
  });

  it('keeps the case of the path (matching decides about case)', () => {
    expect(readings('/Admin/X')).toEqual(['/Admin/X']);
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
  ])('gives %s no reading at all', (_name, uri) => {
    expect(readPath(uri)).toEqual({ kind: 'unreadable' });
  });

  it('reads the raw query without the fragment', () => {
    expect(rawQuery('/a?x=1&y=%2f#f')).toBe('x=1&y=%2f');
    expect(rawQuery('/a')).toBe('');
  });
});
