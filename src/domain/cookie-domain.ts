/**
 * The domain a gateway protects, derived from its public host: the host minus its first label
 * (`auth.example.com` → `example.com`). A one-label host (`localhost`) or an IP address protects
 * only itself and gets a host-only cookie.
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

export function protectedDomainOf(gatewayHost: string): ProtectedDomain {
  const host = gatewayHost.toLowerCase().replace(/\.$/, '');
  if (isIpLiteral(host)) return { domain: host, shareable: false };
  const labels = host.split('.');
  if (labels.length <= 2) {
    // `localhost` is host-only; `example.com` protects itself and its subdomains.
    return labels.length === 1 ? { domain: host, shareable: false } : { domain: host, shareable: true };
  }
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
