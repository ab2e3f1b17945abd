import { TldtsPublicSuffixList } from '../adapters/system/tldts-public-suffix-list';
import { protectedDomainOf, type ProtectedDomain } from '../domain/cookie-domain';
import type { GatewayDomain } from '../domain/gateway-domains';

const publicSuffixes = new TldtsPublicSuffixList();
const registrableDomainOf = (host: string): string | null => publicSuffixes.registrableDomain(host);

/** The domain the session cookie is scoped to, from APP_URL's host and the public-suffix list. */
export function protectedDomainOfAppUrl(appUrl: string): ProtectedDomain {
  return protectedDomainOf(new URL(appUrl).hostname, registrableDomainOf);
}

/** Every gateway of APP_URL with its cookie domain, primary first (issue 17). */
export function gatewayDomainsOf(appUrls: readonly string[]): GatewayDomain[] {
  return appUrls.map((url) => ({ url, hostname: new URL(url).hostname.toLowerCase(), domain: protectedDomainOfAppUrl(url) }));
}

/** The cookie scope in words, for the start-up log and `config check`. */
export function describeCookieDomain(domain: ProtectedDomain): string {
  return domain.shareable ? `Domain=${domain.domain} (${domain.domain} and every host under it)` : `host-only (${domain.domain} alone: no Domain attribute)`;
}
