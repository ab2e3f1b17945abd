import { protectedDomainOf } from '../../../src/domain/cookie-domain';
import { registrableDomainOf } from '../../support/public-suffixes';
import { safeRedirectTarget } from '../../../src/domain/redirect-target';

describe('safeRedirectTarget', () => {
  const domain = protectedDomainOf('auth.example.com', registrableDomainOf);
  const safe = (raw: unknown): string | null => safeRedirectTarget(raw, domain);

  it('accepts http(s) URLs on the protected domain and its subdomains, normalised', () => {
    expect(safe('https://app.example.com/path?q=1#frag')).toBe('https://app.example.com/path?q=1#frag');
    expect(safe('http://example.com')).toBe('http://example.com/');
    expect(safe('HTTPS://APP.Example.COM:8443/A')).toBe('https://app.example.com:8443/A');
    expect(safe('https://app.example.com./x')).toBe('https://app.example.com./x');
  });

  it('refuses look-alike hosts off the domain', () => {
    for (const raw of [
      'https://evilexample.com/',
      'https://example.com.evil.test/',
      'https://example.community/',
      'https://evil.test/?https://app.example.com/',
    ]) {
      expect(safe(raw)).toBeNull();
    }
  });

  it('refuses URLs with userinfo, even when the user part names the domain', () => {
    for (const raw of ['https://app.example.com@evil.test/', 'https://user:pw@app.example.com/', 'https://evil.test:x@app.example.com/']) {
      expect(safe(raw)).toBeNull();
    }
  });

  it('refuses anything with a backslash, which browsers read as a slash', () => {
    for (const raw of [
      'https://evil.test\\@app.example.com/',
      'https:\\\\evil.test',
      'https://app.example.com\\.evil.test/',
      'https://app.example.com/\\evil',
    ]) {
      expect(safe(raw)).toBeNull();
    }
  });

  it('refuses script, data and other schemes', () => {
    for (const raw of [
      'javascript:alert(1)',
      'JavaScript://app.example.com/%0aalert(1)',
      'data:text/html,hi',
      'ftp://app.example.com/',
      'file:///etc/passwd',
      'vbscript:x',
    ]) {
      expect(safe(raw)).toBeNull();
    }
  });

  it('refuses protocol-relative and relative targets', () => {
    for (const raw of ['//evil.test/', '//app.example.com/', '/\\evil.test', '/path', 'app.example.com/x', 'https:app.example.com', 'https:/app.example.com']) {
      expect(safe(raw)).toBeNull();
    }
  });

  it('refuses whitespace and control characters that parsers strip or split on', () => {
    for (const raw of [
      ' https://app.example.com/',
      'https://app.example.com/\n',
      'https://evil.test\t.example.com/',
      'java\nscript:alert(1)',
      'https://app.example.com/\u0000',
      'https://app.example.com/a b',
      'https://app.example.com/\u007f',
    ]) {
      expect(safe(raw)).toBeNull();
    }
  });

  it('refuses percent-encoded tricks that would land off the domain', () => {
    for (const raw of [
      'https://evil.test%2F.example.com/',
      'https://evil.test%2f@app.example.com/',
      'https://%65vil.test/',
      'https://evil.test%00.example.com/',
      'https://evil.test%23.example.com/',
      'https://evil.test%3F.example.com/',
    ]) {
      expect(safe(raw)).toBeNull();
    }
  });

  it('keeps percent-encoded characters in the path as they are', () => {
    expect(safe('https://app.example.com/%2F%2Fevil.test')).toBe('https://app.example.com/%2F%2Fevil.test');
  });

  it('decodes percent-encoded host letters before comparing', () => {
    expect(safe('https://%61pp.example.com/')).toBe('https://app.example.com/');
  });

  it('refuses what is not a string, empty, or absurdly long', () => {
    for (const raw of [undefined, null, 42, {}, ['https://app.example.com/'], '', `https://app.example.com/${'a'.repeat(5000)}`]) {
      expect(safe(raw)).toBeNull();
    }
  });

  it('refuses malformed URLs', () => {
    for (const raw of ['https://', 'https:///path', 'https://[::1/', 'https://app.example.com:99999/', 'http://exa mple.com/']) {
      expect(safe(raw)).toBeNull();
    }
  });

  it('refuses IP addresses and other hosts when the gateway protects a domain', () => {
    expect(safe('https://127.0.0.1/')).toBeNull();
    expect(safe('https://[::1]/')).toBeNull();
  });

  it('accepts only the gateway host itself when it has a host-only cookie', () => {
    const local = protectedDomainOf('localhost', registrableDomainOf);
    expect(safeRedirectTarget('http://localhost:8080/app', local)).toBe('http://localhost:8080/app');
    expect(safeRedirectTarget('http://app.localhost/', local)).toBeNull();
    const ip = protectedDomainOf('[::1]', registrableDomainOf);
    expect(safeRedirectTarget('http://[::1]:3000/', ip)).toBe('http://[::1]:3000/');
    expect(safeRedirectTarget('http://127.0.0.1/', ip)).toBeNull();
  });
});
