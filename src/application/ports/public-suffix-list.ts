/**
 * The public-suffix list (publicsuffix.org), which browsers use to refuse a cookie `Domain` that
 * every customer of a registry or a hosting service shares (`co.uk`, `github.io`).
 */
export interface PublicSuffixList {
  /**
   * The registrable domain of a host name: its public suffix plus one label
   * (`auth.example.co.uk` → `example.co.uk`, `me.github.io` → `me.github.io`), private suffixes
   * included since browsers honour them. Null when the host is itself a public suffix (`co.uk`,
   * `github.io`), has none (`localhost`) or is an IP address. Never throws.
   */
  registrableDomain(host: string): string | null;
}
