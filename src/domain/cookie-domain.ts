/**
 * The domain a gateway protects, derived from its public host: the host minus its first label
 * (`auth.example.com` → `example.com`), but never above the registrable domain of the
 * public-suffix list (`auth.example.co.uk` → `example.co.uk`; `example.co.uk` protects itself,
 * since browsers refuse a cookie for `co.uk`). The list's private section counts
 * (`me.github.io` protects itself, not `github.io`), as it does in browsers. A one-label host
 * (`localhost`), an IP address or a host that is itself a public suffix protects only itself and
 * gets a host-only cookie.
 */
export interface ProtectedDomain {
  /** Lower-case domain; equals the gateway host for host-only setups. */
  readonly domain: string;
  /** False when the cookie must be host-only (no `Domain` attribute). */
  readonly shareable: boolean;
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

export function isIpLiteral(host: string): boolean {
  return IPV4.test(host) || host.startsWith('[') || host.includes(':');
}

/**
 * The registrable domain of a host (public suffix plus one label), null when the host is itself
 * a public suffix or has none: the public-suffix list's answer, handed in by composition so this
 * rule stays pure (see the `PublicSuffixList` port).
 */
export type RegistrableDomainOf = (host: string) => string | null;

export function protectedDomainOf(gatewayHost: string, registrableDomainOf: RegistrableDomainOf): ProtectedDomain {
  const host = gatewayHost.toLowerCase().replace(/\.$/, '');
  const hostOnly = { domain: host, shareable: false };
  if (isIpLiteral(host)) return hostOnly;
  const labels = host.split('.');
  // `localhost` is host-only whatever a list says.
  if (labels.length === 1) return hostOnly;
  const registrable = registrableDomainOf(host)?.toLowerCase().replace(/\.$/, '') ?? null;
  // `co.uk` or `github.io` as the gateway host: a Domain cookie for it would be refused, or shared by strangers.
  if (registrable === null || (registrable !== host && !host.endsWith(`.${registrable}`))) return hostOnly;
  // `example.co.uk` protects itself and its subdomains; `auth.example.co.uk` protects `example.co.uk`.
  if (registrable === host) return { domain: host, shareable: true };
  return { domain: labels.slice(1).join('.'), shareable: true };
}

/** True when `host` is the protected domain itself or one of its subdomains (label-wise, never by suffix alone). */
export function isWithinDomain(host: string, protectedDomain: ProtectedDomain): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  const d = protectedDomain.domain;
  if (h === d) return true;
  if (!protectedDomain.shareable) return false;
  return h.endsWith(`.${d}`) && h.length > d.length + 1;
}
