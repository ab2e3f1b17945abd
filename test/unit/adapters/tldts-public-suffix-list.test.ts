import { TldtsPublicSuffixList } from '../../../src/adapters/system/tldts-public-suffix-list';
import { protectedDomainOf } from '../../../src/domain/cookie-domain';

const list = new TldtsPublicSuffixList();
const domainOf = (host: string) => protectedDomainOf(host, (h) => list.registrableDomain(h));

describe('TldtsPublicSuffixList', () => {
  it('knows ICANN suffixes of more than one label', () => {
    expect(list.registrableDomain('auth.mydomain.co.uk')).toBe('mydomain.co.uk');
    expect(list.registrableDomain('mydomain.co.uk')).toBe('mydomain.co.uk');
    expect(list.registrableDomain('auth.home.arpa')).toBe('auth.home.arpa');
  });

  it('counts the private section (github.io), as browsers do', () => {
    expect(list.registrableDomain('me.github.io')).toBe('me.github.io');
    expect(list.registrableDomain('auth.me.github.io')).toBe('me.github.io');
  });

  it('gives no registrable domain for a public suffix, localhost or an IP address', () => {
    for (const host of ['co.uk', 'github.io', 'com', 'localhost', '127.0.0.1', '::1']) expect(list.registrableDomain(host)).toBeNull();
  });
});

describe('the cookie domain with the real list', () => {
  it('is mydomain.co.uk for APP_URL https://mydomain.co.uk, never co.uk', () => {
    expect(domainOf('mydomain.co.uk')).toEqual({ domain: 'mydomain.co.uk', shareable: true });
  });

  it('stays the host minus its first label below the registrable domain', () => {
    expect(domainOf('auth.example.com')).toEqual({ domain: 'example.com', shareable: true });
    expect(domainOf('login.apps.example.co.uk')).toEqual({ domain: 'apps.example.co.uk', shareable: true });
  });

  it('is host-only for a public suffix, localhost and IP addresses', () => {
    for (const host of ['github.io', 'co.uk', 'localhost', '127.0.0.1', '[::1]']) expect(domainOf(host).shareable).toBe(false);
  });
});
