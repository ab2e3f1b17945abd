import { isIpLiteral, isWithinDomain, protectedDomainOf as ruleOf } from '../../../src/domain/cookie-domain';
import { registrableDomainOf } from '../../support/public-suffixes';

const protectedDomainOf = (host: string) => ruleOf(host, registrableDomainOf);

describe('protectedDomainOf', () => {
  it('drops the first label of the gateway host', () => {
    expect(protectedDomainOf('auth.example.com')).toEqual({ domain: 'example.com', shareable: true });
    expect(protectedDomainOf('login.apps.example.co.uk')).toEqual({ domain: 'apps.example.co.uk', shareable: true });
  });

  it('lower-cases the host and ignores a trailing dot', () => {
    expect(protectedDomainOf('Auth.Example.COM.')).toEqual({ domain: 'example.com', shareable: true });
  });

  it('lets a two-label host protect itself and its subdomains', () => {
    expect(protectedDomainOf('example.com')).toEqual({ domain: 'example.com', shareable: true });
  });

  it('gives a one-label host a host-only cookie', () => {
    expect(protectedDomainOf('localhost')).toEqual({ domain: 'localhost', shareable: false });
    expect(protectedDomainOf('LOCALHOST')).toEqual({ domain: 'localhost', shareable: false });
  });

  it('gives an IPv4 address a host-only cookie', () => {
    expect(protectedDomainOf('127.0.0.1')).toEqual({ domain: '127.0.0.1', shareable: false });
    expect(protectedDomainOf('192.168.1.20')).toEqual({ domain: '192.168.1.20', shareable: false });
  });

  it('gives an IPv6 address a host-only cookie', () => {
    expect(protectedDomainOf('[::1]')).toEqual({ domain: '[::1]', shareable: false });
    expect(protectedDomainOf('[2001:DB8::1]')).toEqual({ domain: '[2001:db8::1]', shareable: false });
  });

  // Browsers refuse a cookie whose Domain is a public suffix: every site under co.uk would share it.
  it('never climbs to a public suffix: mydomain.co.uk protects itself, not co.uk', () => {
    expect(protectedDomainOf('mydomain.co.uk')).toEqual({ domain: 'mydomain.co.uk', shareable: true });
    expect(protectedDomainOf('auth.mydomain.co.uk')).toEqual({ domain: 'mydomain.co.uk', shareable: true });
  });

  it('counts the private section of the list (github.io-style hosting) as browsers do', () => {
    expect(protectedDomainOf('me.github.io')).toEqual({ domain: 'me.github.io', shareable: true });
    expect(protectedDomainOf('auth.me.github.io')).toEqual({ domain: 'me.github.io', shareable: true });
  });

  it('gives a host that is itself a public suffix a host-only cookie', () => {
    expect(protectedDomainOf('co.uk')).toEqual({ domain: 'co.uk', shareable: false });
    expect(protectedDomainOf('github.io')).toEqual({ domain: 'github.io', shareable: false });
  });

  it('never asks the list about an IP address or a one-label host', () => {
    const asked: string[] = [];
    const lookup = (host: string): string | null => {
      asked.push(host);
      return host;
    };
    for (const host of ['127.0.0.1', '[::1]', 'localhost']) expect(ruleOf(host, lookup).shareable).toBe(false);
    expect(asked).toEqual([]);
  });
});

describe('isIpLiteral', () => {
  it('recognises IPv4 and bracketed or bare IPv6', () => {
    for (const host of ['10.0.0.1', '255.255.255.255', '[::1]', '::1', '[fe80::1]']) expect(isIpLiteral(host)).toBe(true);
  });

  it('does not mistake names for addresses', () => {
    for (const host of ['example.com', 'localhost', '10.0.0.1.example.com', '1.2.3', 'a1.b2.c3.d4']) expect(isIpLiteral(host)).toBe(false);
  });
});

describe('isWithinDomain', () => {
  const example = protectedDomainOf('auth.example.com');

  it('accepts the protected domain itself and any subdomain', () => {
    for (const host of ['example.com', 'app.example.com', 'a.b.c.example.com', 'auth.example.com']) expect(isWithinDomain(host, example)).toBe(true);
  });

  it('compares case-insensitively and ignores one trailing dot', () => {
    expect(isWithinDomain('APP.Example.Com', example)).toBe(true);
    expect(isWithinDomain('app.example.com.', example)).toBe(true);
  });

  it('refuses hosts that merely end with the same letters', () => {
    expect(isWithinDomain('evilexample.com', example)).toBe(false);
    expect(isWithinDomain('notexample.com', example)).toBe(false);
  });

  it('refuses hosts that merely start with the domain', () => {
    expect(isWithinDomain('example.com.evil.test', example)).toBe(false);
    expect(isWithinDomain('example.community', example)).toBe(false);
  });

  it('refuses other domains, empty hosts, a bare dot-prefixed domain and IP addresses', () => {
    for (const host of ['evil.test', 'com', '', '.example.com', '127.0.0.1', 'example.org', 'example.com..']) {
      expect(isWithinDomain(host, example)).toBe(false);
    }
  });

  it('accepts only the exact host for a host-only domain', () => {
    const local = protectedDomainOf('localhost');
    expect(isWithinDomain('localhost', local)).toBe(true);
    expect(isWithinDomain('LocalHost', local)).toBe(true);
    expect(isWithinDomain('app.localhost', local)).toBe(false);
    const ip = protectedDomainOf('127.0.0.1');
    expect(isWithinDomain('127.0.0.1', ip)).toBe(true);
    expect(isWithinDomain('127.0.0.2', ip)).toBe(false);
    expect(isWithinDomain('x.127.0.0.1', ip)).toBe(false);
  });
});
