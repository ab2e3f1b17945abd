import { parseForwarded } from '../../../src/domain/forwarded-request';

describe('parseForwarded', () => {
  it('reads proto, host and uri into a normalised original request', () => {
    const parsed = parseForwarded({ proto: 'HTTPS', host: 'App.Example.COM.:8443', uri: '/a?b=1' });
    expect(parsed).toEqual({
      ok: true,
      value: { proto: 'https', hostname: 'app.example.com', host: 'app.example.com:8443', uri: '/a?b=1', url: 'https://app.example.com:8443/a?b=1' },
    });
  });

  it('gives the same answer for a host it has seen before', () => {
    const first = parseForwarded({ proto: 'http', host: 'repeat.example.com', uri: '/one' });
    const second = parseForwarded({ proto: 'https', host: 'repeat.example.com', uri: '/two' });
    expect(first.ok && first.value.url).toBe('http://repeat.example.com/one');
    expect(second.ok && second.value.url).toBe('https://repeat.example.com/two');
  });

  it('refuses a port the URL parser refuses, every time it is asked', () => {
    for (let i = 0; i < 2; i += 1) {
      expect(parseForwarded({ proto: 'https', host: 'app.example.com:99999', uri: '/' })).toEqual({ ok: false, error: { code: 'malformed', field: 'X-Forwarded-Uri' } });
    }
  });

  it('refuses a host that is not a host name', () => {
    expect(parseForwarded({ proto: 'https', host: 'bad host', uri: '/' })).toEqual({ ok: false, error: { code: 'malformed', field: 'X-Forwarded-Host' } });
    expect(parseForwarded({ proto: 'https', host: 'user@app.example.com', uri: '/' })).toEqual({ ok: false, error: { code: 'malformed', field: 'X-Forwarded-Host' } });
  });

  it('keeps an IPv6 literal with its brackets as the host name', () => {
    const parsed = parseForwarded({ proto: 'http', host: '[::1]:8080', uri: '/' });
    expect(parsed.ok && parsed.value.hostname).toBe('[::1]');
  });

  it('refuses an invalid IPv6 literal', () => {
    expect(parseForwarded({ proto: 'http', host: '[:::::]', uri: '/' }).ok).toBe(false);
  });

  it('refuses a uri that does not start with a slash or holds spaces', () => {
    expect(parseForwarded({ proto: 'http', host: 'a.example.com', uri: 'x' })).toEqual({ ok: false, error: { code: 'malformed', field: 'X-Forwarded-Uri' } });
    expect(parseForwarded({ proto: 'http', host: 'a.example.com', uri: '/a b' })).toEqual({ ok: false, error: { code: 'malformed', field: 'X-Forwarded-Uri' } });
  });
});
