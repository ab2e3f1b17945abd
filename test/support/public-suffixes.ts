import type { PublicSuffixList } from '../../src/application/ports/public-suffix-list';

/**
 * A hand-written public-suffix list for unit tests: a few ICANN suffixes (`com`, `org`, `test`,
 * `co.uk`, `uk`) and one private one (`github.io`), enough to tell the rule apart from "drop the
 * first label". The real list is the tldts adapter's (test/unit/adapters/tldts-public-suffix-list.test.ts).
 */
const SUFFIXES = new Set(['com', 'org', 'net', 'test', 'uk', 'co.uk', 'io', 'github.io', 'localhost']);

export const fakePublicSuffixes: PublicSuffixList = {
  registrableDomain(host: string): string | null {
    const labels = host.toLowerCase().split('.');
    // The longest matching suffix plus one label, as the real list's rules do for these entries.
    for (let i = 0; i < labels.length; i += 1) {
      if (SUFFIXES.has(labels.slice(i).join('.'))) return i === 0 ? null : labels.slice(i - 1).join('.');
    }
    return null;
  },
};

/** `registrableDomain` as the plain function the domain rule takes. */
export const registrableDomainOf = (host: string): string | null => fakePublicSuffixes.registrableDomain(host);
