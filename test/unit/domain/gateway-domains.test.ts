import { protectedDomainOf } from '../../../src/domain/cookie-domain';
import { gatewayDomainProblems, gatewayIndexOfHost } from '../../../src/domain/gateway-domains';
import { registrableDomainOf } from '../../support/public-suffixes';

describe('gatewayIndexOfHost', () => {
  const domains = ['auth.example.com', 'auth.example.org', 'localhost'].map((h) => protectedDomainOf(h, registrableDomainOf));

  it('finds the gateway whose cookie domain holds the host, label-wise', () => {
    expect(gatewayIndexOfHost(domains, 'app.example.com')).toBe(0);
    expect(gatewayIndexOfHost(domains, 'deep.app.example.org')).toBe(1);
    expect(gatewayIndexOfHost(domains, 'example.org')).toBe(1);
    expect(gatewayIndexOfHost(domains, 'localhost')).toBe(2);
  });

  it('finds none for look-alikes and other hosts', () => {
    for (const host of ['evilexample.org', 'example.org.evil.test', 'app.localhost', 'example.community', '127.0.0.1']) {
      expect([host, gatewayIndexOfHost(domains, host)]).toEqual([host, -1]);
    }
  });
});

describe('gatewayDomainProblems', () => {
  const problems = (...hosts: string[]): string[] => gatewayDomainProblems(hosts, registrableDomainOf);

  it('has nothing to say about one host, whatever it is (a single gateway behaves as before)', () => {
    expect(problems('github.io')).toEqual([]);
  });

  it('accepts separate root domains', () => {
    expect(problems('auth.example.com', 'auth.example.org', 'me.github.io', 'localhost')).toEqual([]);
  });

  it('refuses two hosts on one cookie domain, nested domains, the same host twice and a public suffix', () => {
    expect(problems('auth.example.com', 'login.example.com')).toEqual([expect.stringMatching(/share the cookie domain example\.com/)]);
    expect(problems('auth.example.com', 'auth.eu.example.com')).toEqual([
      expect.stringMatching(/overlap: the cookie domain eu\.example\.com lies inside example\.com/),
    ]);
    expect(problems('auth.example.com', 'AUTH.example.com.')).toEqual([expect.stringMatching(/lists the host auth\.example\.com twice/)]);
    expect(problems('auth.example.com', 'co.uk')).toEqual([expect.stringMatching(/public suffix co\.uk/)]);
  });
});
