import { isIpLiteral, isWithinDomain, protectedDomainOf, type ProtectedDomain, type RegistrableDomainOf } from './cookie-domain';

/**
 * The domains one gateway protects when `APP_URL` lists several gateway URLs (issue 17): the
 * first is the primary (login page, UI, OAuth callback, OIDC issuer), the others are secondaries
 * that borrow the primary's login through the hand-off. Each has its own cookie domain, derived
 * from its URL's host exactly as for a single gateway (see `protectedDomainOf`).
 */
export interface GatewayDomain {
  /** The gateway URL as configured (normalised, no trailing slash). */
  readonly url: string;
  /** The URL's host name, lower case: the Host a request for this gateway carries. */
  readonly hostname: string;
  readonly domain: ProtectedDomain;
}

/**
 * The index of the gateway whose cookie domain holds `host`, -1 when none does. Checked in the
 * configured order, primary first; configuration refuses overlapping domains, so at most one matches.
 */
export function gatewayIndexOfHost(domains: readonly ProtectedDomain[], host: string): number {
  for (let i = 0; i < domains.length; i += 1) if (isWithinDomain(host, domains[i])) return i;
  return -1;
}

/**
 * What is wrong with a list of gateway hosts (primary first), in words for start-up and `config
 * check`; empty when nothing is. A single host is never a problem here (today's behaviour stays).
 * Refused for a list: the same host twice, two hosts on one cookie domain (or one inside the
 * other's: a cookie of the outer domain would reach the inner one's apps, so one browser would
 * carry two sessions for one host), and a host whose cookie domain is a public suffix or
 * has none (`github.io`, `co.uk`: no cookie could be shared there, a secondary there protects nothing).
 */
export function gatewayDomainProblems(hosts: readonly string[], registrableDomainOf: RegistrableDomainOf): string[] {
  if (hosts.length < 2) return [];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const domains: (ProtectedDomain | null)[] = [];
  hosts.forEach((raw, i) => {
    const host = raw.toLowerCase().replace(/\.$/, '');
    const first = seen.get(host);
    if (first !== undefined) {
      problems.push(`APP_URL lists the host ${host} twice (entries ${first + 1} and ${i + 1}): give each protected domain one gateway URL`);
      domains.push(null);
      return;
    }
    seen.set(host, i);
    const domain = protectedDomainOf(host, registrableDomainOf);
    if (!isIpLiteral(host) && host.includes('.') && registrableDomainOf(host) === null) {
      problems.push(
        `APP_URL entry ${i + 1} (${host}): its cookie domain would be the public suffix ${host}; browsers refuse or share such cookies with strangers`,
      );
      domains.push(null);
      return;
    }
    domains.push(domain);
  });
  for (let i = 0; i < domains.length; i += 1) {
    for (let j = i + 1; j < domains.length; j += 1) {
      const a = domains[i];
      const b = domains[j];
      if (a === null || b === null) continue;
      if (a.domain === b.domain)
        problems.push(
          `APP_URL entries ${i + 1} and ${j + 1} share the cookie domain ${a.domain}: one gateway URL per cookie domain (the first one covers it already)`,
        );
      else if (isWithinDomain(b.domain, a) || isWithinDomain(a.domain, b)) {
        const [outer, inner] = isWithinDomain(b.domain, a) ? [a, b] : [b, a];
        problems.push(
          `APP_URL entries ${i + 1} and ${j + 1} overlap: the cookie domain ${inner.domain} lies inside ${outer.domain}; give domains that do not contain each other`,
        );
      }
    }
  }
  return problems;
}
