import { getDomain, parse } from 'tldts';
import type { PublicSuffixList } from '../../application/ports/public-suffix-list';

/**
 * The public-suffix list as tldts ships it (the list is compiled into the package, so a release
 * of the gateway carries the list of its day; updating tldts updates it). Private suffixes
 * (`github.io`, `netlify.app`) count, as they do in browsers.
 */
export class TldtsPublicSuffixList implements PublicSuffixList {
  registrableDomain(host: string): string | null {
    // detectIp: an IP address has no registrable domain; validHosts stays empty: no host is special.
    return getDomain(host, { allowPrivateDomains: true, detectIp: true, extractHostname: false }) ?? null;
  }

  /**
   * Whether a host is a name on the public internet: under a suffix of the list's ICANN part
   * (`example.com`), not an address, `localhost`, nor a name for home or private networks
   * (`.test`, `.local`, `.internal`, `.lan`, `home.arpa`).
   */
  isPublicName(host: string): boolean {
    const parsed = parse(host, { allowPrivateDomains: false, detectIp: true, extractHostname: false });
    return parsed.isIp !== true && parsed.isIcann === true && parsed.publicSuffix !== 'home.arpa';
  }
}
