import { parseForwarded, type ForwardedHeaders } from '../../../src/domain/forwarded-request';

const parsed = (headers: ForwardedHeaders) => {
  const result = parseForwarded(headers);
  if (!result.ok) throw new Error(`expected a request, got ${JSON.stringify(result.error)}`);
  return result.value;
};
const malformed = (field: string) => ({ ok: false, error: { code: 'malformed', field } });

describe('parseForwarded', () => {
  it('reads the three X-Forwarded headers of traefik and caddy', () => {
    expect(parsed({ proto: 'https', host: 'app.example.com', uri: '/path/to?q=1&r=%20' })).toEqual({
      proto: 'https',
      hostname: 'app.example.com',
      host: 'app.example.com',
      uri: '/path/to?q=1&r=%20',
      url: 'https://app.example.com/path/to?q=1&r=%20',
    });
  });

  it('lower-cases the proto and the host but keeps the path as sent', () => {
    const r = parsed({ proto: 'HTTPS', host: 'App.Example.COM', uri: '/CaseSensitive' });
    expect(r.proto).toBe('https');
    expect(r.hostname).toBe('app.example.com');
    expect(r.url).toBe('https://app.example.com/CaseSensitive');
  });

  it('keeps a port in host and url but not in hostname', () => {
    const r = parsed({ proto: 'https', host: 'app.example.com:8443', uri: '/' });
    expect(r.hostname).toBe('app.example.com');
    expect(r.host).toBe('app.example.com:8443');
    expect(r.url).toBe('https://app.example.com:8443/');
  });

  it('drops a trailing dot of the host, with or without a port', () => {
    expect(parsed({ proto: 'https', host: 'App.Example.com.', uri: '/' })).toMatchObject({ hostname: 'app.example.com', host: 'app.example.com' });
    expect(parsed({ proto: 'https', host: 'app.example.com.:8443', uri: '/' })).toMatchObject({ hostname: 'app.example.com', host: 'app.example.com:8443' });
  });

  it('reads IPv4 and bracketed IPv6 hosts, with or without a port', () => {
    expect(parsed({ proto: 'http', host: '192.0.2.10:8080', uri: '/' })).toMatchObject({ hostname: '192.0.2.10', host: '192.0.2.10:8080' });
    expect(parsed({ proto: 'http', host: '[::1]:8080', uri: '/' })).toMatchObject({ hostname: '[::1]', host: '[::1]:8080', url: 'http://[::1]:8080/' });
    expect(parsed({ proto: 'http', host: '[2001:DB8::1]', uri: '/' })).toMatchObject({ hostname: '[2001:db8::1]' });
  });

  it('takes the first value of a comma-separated chain', () => {
    expect(parsed({ proto: 'https, http', host: 'app.example.com, internal.local', uri: '/' })).toMatchObject({ proto: 'https', hostname: 'app.example.com' });
  });

  it('defaults a missing proto to http and a missing or empty uri to /', () => {
    expect(parsed({ host: 'app.example.com' })).toMatchObject({ proto: 'http', uri: '/', url: 'http://app.example.com/' });
    expect(parsed({ proto: 'https', host: 'app.example.com', uri: '' })).toMatchObject({ uri: '/' });
  });

  it('reports no forwarded headers at all as missing', () => {
    expect(parseForwarded({})).toEqual({ ok: false, error: { code: 'missing' } });
  });

  it('reports a proto or uri without a host as a malformed host', () => {
    expect(parseForwarded({ proto: 'https' })).toEqual(malformed('X-Forwarded-Host'));
    expect(parseForwarded({ uri: '/x' })).toEqual(malformed('X-Forwarded-Host'));
    expect(parseForwarded({ proto: 'https', host: '', uri: '/' })).toEqual(malformed('X-Forwarded-Host'));
    expect(parseForwarded({ proto: 'https', host: ', app.example.com', uri: '/' })).toEqual(malformed('X-Forwarded-Host'));
  });

  it('refuses a proto other than http or https', () => {
    for (const proto of ['ftp', 'javascript', 'ws', '', 'https:', 'http s']) {
      expect(parseForwarded({ proto, host: 'app.example.com', uri: '/' })).toEqual(malformed('X-Forwarded-Proto'));
    }
  });

  it('refuses hosts that are not a host name or address with an optional port', () => {
    for (const host of [
      'evil.test/x',
      'user@app.example.com',
      'user:pw@app.example.com',
      'app.example.com:abc',
      'app.example.com:',
      'app.example.com:123456',
      'app.example.com:99999',
      'a b.example.com',
      '-bad.example.com',
      'bad-.example.com',
      'app_example.com',
      'app..example.com',
      'app.example.com\\evil.test',
      'app.example.com#x',
      'app.example.com?x',
      '[::1',
      '[1.2.3.4]',
      '[::g]',
      `${'a'.repeat(64)}.example.com`,
      `${'abcdefghi.'.repeat(26)}com`,
      'ex\u0000ample.com',
      'exämple.com',
    ]) {
      expect(parseForwarded({ proto: 'https', host, uri: '/' })).toEqual(malformed('X-Forwarded-Host'));
    }
  });

  it('refuses a uri that is not an absolute path, or that carries spaces, controls or backslashes', () => {
    for (const uri of ['x', 'http://evil.test/', '//evil.test/x', '/a b', '/a\tb', '/a\\b', '/\\evil.test', '/a\r\nSet-Cookie: x', '/\u0000', '/\u007f', `/${'a'.repeat(8192)}`]) {
      expect(parseForwarded({ proto: 'https', host: 'app.example.com', uri })).toEqual(malformed('X-Forwarded-Uri'));
    }
  });

  it("reads nginx's X-Original-URL when no X-Forwarded-Host is sent", () => {
    expect(parsed({ originalUrl: 'HTTPS://App.Example.com:8443/p/a?q=1#frag' })).toEqual({
      proto: 'https',
      hostname: 'app.example.com',
      host: 'app.example.com:8443',
      uri: '/p/a?q=1',
      url: 'https://app.example.com:8443/p/a?q=1',
    });
    expect(parsed({ originalUrl: ' http://app.example.com ' })).toMatchObject({ uri: '/', url: 'http://app.example.com/' });
  });

  it('prefers X-Forwarded-Host over X-Original-URL', () => {
    expect(parsed({ proto: 'https', host: 'app.example.com', uri: '/a', originalUrl: 'https://other.example.com/b' })).toMatchObject({ hostname: 'app.example.com', uri: '/a' });
  });

  it('blames X-Original-URL, not headers that were never sent, when it is malformed', () => {
    for (const originalUrl of [
      '',
      '/relative',
      'ftp://app.example.com/',
      'javascript:alert(1)',
      'https://user:pw@app.example.com/',
      'https://evil.test\\@app.example.com/',
      'https://app.example.com:99999/',
      'https://app.example.com/a b',
      'https://app.example.com//evil.test',
    ]) {
      expect(parseForwarded({ originalUrl })).toEqual(malformed('X-Original-URL'));
    }
  });
});
