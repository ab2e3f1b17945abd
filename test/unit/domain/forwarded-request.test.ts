import { parseForwarded, type ForwardedHeaders } from '../../../src/domain/forwarded-request';

const parsed = (headers: ForwardedHeaders) => {
  const result = parseForwarded(headers);
  if (!result.ok) throw new Error(`expected a request, got ${JSON.stringify(result.error)}`);
  return result.value;
};
const malformed = (field: string) => ({ ok: false, error: { code: 'malformed', field } });
const repeated = (field: string) => ({ ok: false, error: { code: 'repeated', field } });
const missing = (field: string) => ({ ok: false, error: { code: 'missing', field } });

describe('parseForwarded', () => {
  it('reads the three X-Forwarded headers of traefik and caddy', () => {
    expect(parsed({ proxy: 'traefik', proto: 'https', host: 'app.example.com', uri: '/path/to?q=1&r=%20' })).toEqual({
      proto: 'https',
      hostname: 'app.example.com',
      host: 'app.example.com',
      uri: '/path/to?q=1&r=%20',
      url: 'https://app.example.com/path/to?q=1&r=%20',
      method: null,
    });
  });

  it('lower-cases the proto and the host but keeps the path as sent', () => {
    const r = parsed({ proxy: 'traefik', proto: 'HTTPS', host: 'App.Example.COM', uri: '/CaseSensitive' });
    expect(r.proto).toBe('https');
    expect(r.hostname).toBe('app.example.com');
    expect(r.url).toBe('https://app.example.com/CaseSensitive');
  });

  it('keeps a port in host and url but not in hostname', () => {
    const r = parsed({ proxy: 'traefik', proto: 'https', host: 'app.example.com:8443', uri: '/' });
    expect(r.hostname).toBe('app.example.com');
    expect(r.host).toBe('app.example.com:8443');
    expect(r.url).toBe('https://app.example.com:8443/');
  });

  it('drops a trailing dot of the host, with or without a port', () => {
    expect(parsed({ proxy: 'traefik', proto: 'https', host: 'App.Example.com.', uri: '/' })).toMatchObject({
      hostname: 'app.example.com',
      host: 'app.example.com',
    });
    expect(parsed({ proxy: 'traefik', proto: 'https', host: 'app.example.com.:8443', uri: '/' })).toMatchObject({
      hostname: 'app.example.com',
      host: 'app.example.com:8443',
    });
  });

  it('reads IPv4 and bracketed IPv6 hosts, with or without a port', () => {
    expect(parsed({ proxy: 'traefik', proto: 'http', host: '192.0.2.10:8080', uri: '/' })).toMatchObject({ hostname: '192.0.2.10', host: '192.0.2.10:8080' });
    expect(parsed({ proxy: 'traefik', proto: 'http', host: '[::1]:8080', uri: '/' })).toMatchObject({
      hostname: '[::1]',
      host: '[::1]:8080',
      url: 'http://[::1]:8080/',
    });
    expect(parsed({ proxy: 'traefik', proto: 'http', host: '[2001:DB8::1]', uri: '/' })).toMatchObject({ hostname: '[2001:db8::1]' });
  });

  // A proxy that appends to a client's header instead of replacing it hands the left-most value
  // to the client: which one the proxy meant cannot be known, so nothing is decided.
  it('refuses a repeated or comma-joined host, proto, uri or method instead of picking one', () => {
    for (const proxy of ['traefik', 'caddy'] as const) {
      expect(parseForwarded({ proxy, proto: 'https', host: 'wiki.example.com, app.example.com', uri: '/' })).toEqual(repeated('X-Forwarded-Host'));
      expect(parseForwarded({ proxy, proto: 'https', host: 'app.example.com,', uri: '/' })).toEqual(repeated('X-Forwarded-Host'));
      expect(parseForwarded({ proxy, proto: 'https', host: ', app.example.com', uri: '/' })).toEqual(repeated('X-Forwarded-Host'));
      expect(parseForwarded({ proxy, proto: 'http, https', host: 'app.example.com', uri: '/' })).toEqual(repeated('X-Forwarded-Proto'));
      // Node joins a repeated header with ", ", which no request target can contain (no spaces).
      expect(parseForwarded({ proxy, proto: 'https', host: 'app.example.com', uri: '/public/x, /admin' })).toEqual(repeated('X-Forwarded-Uri'));
      expect(parseForwarded({ proxy, proto: 'https', host: 'app.example.com', uri: ', /admin' })).toEqual(repeated('X-Forwarded-Uri'));
      expect(parseForwarded({ proxy, proto: 'https', host: 'app.example.com', uri: '/', method: 'GET, POST' })).toEqual(repeated('X-Forwarded-Method'));
    }
    expect(parseForwarded({ proxy: 'nginx', originalUrl: 'https://app.example.com/public/x, https://app.example.com/admin' })).toEqual(
      repeated('X-Original-URL'),
    );
    expect(parseForwarded({ proxy: 'nginx', originalUrl: 'https://app.example.com/, ' })).toEqual(repeated('X-Original-URL'));
    expect(parseForwarded({ proxy: 'nginx', originalUrl: 'https://app.example.com/', originalMethod: 'GET, DELETE' })).toEqual(repeated('X-Original-Method'));
  });

  it('keeps a comma that belongs to the path or the query', () => {
    expect(parsed({ proxy: 'traefik', proto: 'https', host: 'app.example.com', uri: '/a,b?ids=1,2' })).toMatchObject({ uri: '/a,b?ids=1,2' });
    expect(parsed({ proxy: 'nginx', originalUrl: 'https://app.example.com/a,b?ids=1,2' })).toMatchObject({ uri: '/a,b?ids=1,2' });
  });

  it('reads the method the proxy names, and refuses one that is not an HTTP token', () => {
    expect(parsed({ proxy: 'traefik', proto: 'https', host: 'app.example.com', uri: '/', method: 'POST' })).toMatchObject({ method: 'POST' });
    expect(parsed({ proxy: 'nginx', originalUrl: 'https://app.example.com/', originalMethod: 'DELETE' })).toMatchObject({ method: 'DELETE' });
    expect(parsed({ proxy: 'caddy', proto: 'https', host: 'app.example.com', uri: '/' })).toMatchObject({ method: null });
    for (const method of ['', 'G T', 'GET\r\n', 'GE(T', 'x'.repeat(33)]) {
      expect(parseForwarded({ proxy: 'caddy', proto: 'https', host: 'app.example.com', uri: '/', method })).toEqual(malformed('X-Forwarded-Method'));
      expect(parseForwarded({ proxy: 'nginx', originalUrl: 'https://app.example.com/', originalMethod: method })).toEqual(malformed('X-Original-Method'));
    }
  });

  it('defaults a missing proto to http and a missing or empty uri to /', () => {
    expect(parsed({ proxy: 'caddy', host: 'app.example.com' })).toMatchObject({ proto: 'http', uri: '/', url: 'http://app.example.com/' });
    expect(parsed({ proxy: 'traefik', proto: 'https', host: 'app.example.com', uri: '' })).toMatchObject({ uri: '/' });
  });

  it('reports no forwarded headers at all from traefik or caddy as absent', () => {
    expect(parseForwarded({ proxy: 'traefik' })).toEqual({ ok: false, error: { code: 'absent' } });
    expect(parseForwarded({ proxy: 'caddy' })).toEqual({ ok: false, error: { code: 'absent' } });
  });

  it('reports a proto or uri without a host as a malformed host', () => {
    expect(parseForwarded({ proxy: 'traefik', proto: 'https' })).toEqual(malformed('X-Forwarded-Host'));
    expect(parseForwarded({ proxy: 'caddy', uri: '/x' })).toEqual(malformed('X-Forwarded-Host'));
    expect(parseForwarded({ proxy: 'traefik', proto: 'https', host: '', uri: '/' })).toEqual(malformed('X-Forwarded-Host'));
  });

  it('refuses a proto other than http or https', () => {
    for (const proto of ['ftp', 'javascript', 'ws', '', 'https:', 'http s']) {
      expect(parseForwarded({ proxy: 'traefik', proto, host: 'app.example.com', uri: '/' })).toEqual(malformed('X-Forwarded-Proto'));
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
      expect(parseForwarded({ proxy: 'traefik', proto: 'https', host, uri: '/' })).toEqual(malformed('X-Forwarded-Host'));
    }
  });

  it('refuses a uri that is not an absolute path, or that carries spaces, controls or backslashes', () => {
    for (const uri of [
      'x',
      'http://evil.test/',
      '//evil.test/x',
      '/a b',
      '/a\tb',
      '/a\\b',
      '/\\evil.test',
      '/a\r\nSet-Cookie: x',
      '/\u0000',
      '/\u007f',
      `/${'a'.repeat(8192)}`,
    ]) {
      expect(parseForwarded({ proxy: 'traefik', proto: 'https', host: 'app.example.com', uri })).toEqual(malformed('X-Forwarded-Uri'));
    }
  });

  it("reads nginx's X-Original-URL", () => {
    expect(parsed({ proxy: 'nginx', originalUrl: 'HTTPS://App.Example.com:8443/p/a?q=1#frag' })).toEqual({
      proto: 'https',
      hostname: 'app.example.com',
      host: 'app.example.com:8443',
      uri: '/p/a?q=1',
      url: 'https://app.example.com:8443/p/a?q=1',
      method: null,
    });
    expect(parsed({ proxy: 'nginx', originalUrl: ' http://app.example.com ' })).toMatchObject({ uri: '/', url: 'http://app.example.com/' });
  });

  // nginx's auth_request passes the client's own headers on to the gateway: only the header the
  // configuration sets (X-Original-URL, overwriting any the client sent) may name the request.
  it('ignores X-Forwarded-Host, -Uri, -Proto and -Method on the nginx endpoint, even when they come first', () => {
    const r = parsed({
      proxy: 'nginx',
      proto: 'http',
      host: 'wiki.example.com',
      uri: '/public/x',
      method: 'GET',
      originalUrl: 'https://app.example.com/admin',
      originalMethod: 'POST',
    });
    expect(r).toEqual({
      proto: 'https',
      hostname: 'app.example.com',
      host: 'app.example.com',
      uri: '/admin',
      url: 'https://app.example.com/admin',
      method: 'POST',
    });
  });

  it('refuses the nginx endpoint without X-Original-URL rather than reading X-Forwarded-* a client may have sent', () => {
    expect(parseForwarded({ proxy: 'nginx', proto: 'https', host: 'wiki.example.com', uri: '/public/x' })).toEqual(missing('X-Original-URL'));
    expect(parseForwarded({ proxy: 'nginx' })).toEqual(missing('X-Original-URL'));
  });

  it('ignores X-Original-URL on the traefik and caddy endpoints', () => {
    for (const proxy of ['traefik', 'caddy'] as const) {
      expect(parsed({ proxy, proto: 'https', host: 'app.example.com', uri: '/admin', originalUrl: 'https://wiki.example.com/public/x' })).toMatchObject({
        hostname: 'app.example.com',
        uri: '/admin',
      });
      expect(parseForwarded({ proxy, originalUrl: 'https://wiki.example.com/public/x' })).toEqual({ ok: false, error: { code: 'absent' } });
    }
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
      expect(parseForwarded({ proxy: 'nginx', originalUrl })).toEqual(malformed('X-Original-URL'));
    }
  });
});

describe('parseForwarded, asked again about a host it has checked', () => {
  it('gives the same answer for a host it has seen before, whatever the proto and path', () => {
    const first = parseForwarded({ proxy: 'traefik', proto: 'http', host: 'Repeat.Example.com.', uri: '/one' });
    const second = parseForwarded({ proxy: 'traefik', proto: 'https', host: 'repeat.example.com.', uri: '/two' });
    expect(first.ok && first.value.url).toBe('http://repeat.example.com/one');
    expect(second.ok && second.value.url).toBe('https://repeat.example.com/two');
    expect(second.ok && second.value.hostname).toBe('repeat.example.com');
  });

  it('refuses a port the URL parser refuses, every time it is asked', () => {
    for (let i = 0; i < 2; i += 1) {
      expect(parseForwarded({ proxy: 'traefik', proto: 'https', host: 'app.example.com:99999', uri: '/' })).toEqual({
        ok: false,
        error: { code: 'malformed', field: 'X-Forwarded-Host' },
      });
    }
  });

  it('names the header the proxy sent for a refused host, also when the refusal was remembered', () => {
    expect(parseForwarded({ proxy: 'traefik', proto: 'https', host: '[:::::]', uri: '/' })).toEqual({
      ok: false,
      error: { code: 'malformed', field: 'X-Forwarded-Host' },
    });
    expect(parseForwarded({ proxy: 'nginx', originalUrl: 'https://[:::::]/' })).toEqual({ ok: false, error: { code: 'malformed', field: 'X-Original-URL' } });
  });

  it('reports a bad path before a remembered bad host, as on the first request', () => {
    const ask = () => parseForwarded({ proxy: 'traefik', proto: 'https', host: 'app.example.com:70000', uri: 'no-slash' });
    expect(ask()).toEqual(malformed('X-Forwarded-Uri'));
    expect(parseForwarded({ proxy: 'traefik', proto: 'https', host: 'app.example.com:70000', uri: '/' })).toEqual(malformed('X-Forwarded-Host'));
    expect(ask()).toEqual(malformed('X-Forwarded-Uri'));
  });

  it('still refuses a host that fails the pattern after well-formed hosts were remembered', () => {
    expect(parsed({ proxy: 'traefik', proto: 'https', host: 'ok.example.com', uri: '/' }).hostname).toBe('ok.example.com');
    expect(parseForwarded({ proxy: 'traefik', proto: 'https', host: 'ok.example.com/evil', uri: '/' })).toEqual(malformed('X-Forwarded-Host'));
    expect(parseForwarded({ proxy: 'traefik', proto: 'https', host: 'ok_example.com', uri: '/' })).toEqual(malformed('X-Forwarded-Host'));
  });
});
