import { TldtsPublicSuffixList } from '../adapters/system/tldts-public-suffix-list';
import { protectedDomainOf, type ProtectedDomain } from '../domain/cookie-domain';

const publicSuffixes = new TldtsPublicSuffixList();

/** The domain the session cookie is scoped to, from APP_URL's host and the public-suffix list. */
export function protectedDomainOfAppUrl(appUrl: string): ProtectedDomain {
  return protectedDomainOf(new URL(appUrl).hostname, (host) => publicSuffixes.registrableDomain(host));
}

/** The cookie scope in words, for the start-up log and `config check`. */
export function describeCookieDomain(domain: ProtectedDomain): string {
  return domain.shareable ? `Domain=${domain.domain} (${domain.domain} and every host under it)` : `host-only (${domain.domain} alone: no Domain attribute)`;
}
