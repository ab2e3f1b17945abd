import { getDomain } from 'tldts';
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
}
