import { TldtsPublicSuffixList } from '../adapters/system/tldts-public-suffix-list';
import { protectedDomainOf, type ProtectedDomain } from '../domain/cookie-domain';
import { gatewayDomainProblems, type GatewayDomain } from '../domain/gateway-domains';

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

/** What is wrong with APP_URL's list of gateway URLs as cookie domains (none for a single URL). */
export function gatewayUrlProblems(appUrls: readonly string[]): string[] {
  return gatewayDomainProblems(
    appUrls.map((url) => new URL(url).hostname),
    registrableDomainOf,
  );
}

/** Whether APP_URL's host is a name on the public internet (not localhost, an address, or a .test/.local/.internal name). */
export function onPublicName(appUrl: string): boolean {
  return publicSuffixes.isPublicName(new URL(appUrl).hostname);
}

/** The cookie scope in words, for the start-up log and `config check`. */
export function describeCookieDomain(domain: ProtectedDomain): string {
  return domain.shareable ? `Domain=${domain.domain} (${domain.domain} and every host under it)` : `host-only (${domain.domain} alone: no Domain attribute)`;
}
