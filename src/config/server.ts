import { BlockList, isIP } from 'node:net';
import { gatewayDomainProblems } from '../domain/gateway-domains';
import { isIpLiteral } from '../domain/cookie-domain';
import type { EnvReader } from './env';
import type { ConfigLibraries } from './libraries';
import { integer, list, oneOf, options, text } from './option-spec';

/** The server section: listeners, the public URL, proxies, log level, metrics and shutdown. */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/**
 * Only loopback by default: a trusted peer may name any client address in `X-Forwarded-For`, so
 * trusting the private ranges let every LAN, VPN or pod client choose its own address (and pass an
 * `ip.bypass`). A proxy elsewhere is named in `TRUSTED_PROXIES` by its own address.
 */
export const DEFAULT_TRUSTED_PROXIES: readonly string[] = ['127.0.0.0/8', '::1/128'];

/** The listeners and the public URL (the first rows of the gateway group). */
export const LISTENER_OPTIONS = options({
  PORT: { group: 'gateway', parse: integer(0, 65535), fallback: 3000, doc: { default: '`3000` / `0.0.0.0`', meaning: 'listen address' } },
  ADDRESS: { group: 'gateway', parse: text, fallback: '0.0.0.0', doc: { sameRowAs: 'PORT' } },
  APP_URL: {
    group: 'gateway',
    parse: text,
    fallback: undefined,
    configures: true,
    doc: {
      default: 'required (demo: `http://localhost:$PORT`)',
      meaning:
        'public URL of the gateway, with its scheme (`https://`). Login redirects go to `${APP_URL}/login`. Its host must be a DNS name or an IP address (no underscores, empty labels or trailing dot; no credentials, query or fragment; a path is allowed). Several root domains: a comma-separated list of gateway URLs, one per domain (`https://auth.example.com,https://auth.example.org`); the first is the primary (login page, UI, OAuth callbacks, OIDC issuer, access rules), each further one gets its own cookie domain and borrows the login of the primary through a one-time hand-off code (see [One login for several domains](domains.md)); two URLs on one cookie domain (or one inside the domain of another), a repeated host and a URL whose cookie domain would be a public suffix are refused. The protected (cookie) domain is its host minus the first label (`auth.example.com` → `example.com`), never above the registrable domain of the [public-suffix list](https://publicsuffix.org/), private section included as browsers do (`mydomain.co.uk` → `mydomain.co.uk`, not `co.uk`; `me.github.io` → `me.github.io`); a one-label host (`localhost`), an IP or a public suffix itself gives a host-only cookie. The start-up log (`cookieDomain`) and `portcullis config check` show it',
    },
  },
});

/** Proxies, the forward-auth listener and the log level (documented with the gateway group). */
export const PROXY_OPTIONS = options({
  TRUSTED_PROXIES: {
    group: 'gateway',
    parse: list,
    fallback: DEFAULT_TRUSTED_PROXIES,
    doc: {
      default: '`127.0.0.0/8, ::1/128` (loopback only; the private ranges are no longer trusted by default)',
      meaning:
        "the proxies whose `X-Forwarded-For` is believed, read from the right (see [Client address](proxies.md#client-address-trusted_proxies-and-the-per-address-lock)); name your proxy's own addresses, never a range clients live in",
    },
  },
  FORWARD_AUTH_PORT: {
    group: 'gateway',
    parse: integer(1, 65535),
    fallback: null,
    doc: {
      default: '— / `127.0.0.1`',
      meaning:
        "give forward auth (`/api/auth/*`, plus the probes `/api/healthcheck`, `/api/ready` and `/api/health`) a listener of its own; the public listener (`PORT`) then answers every spelling of `/api/auth/*` with a 404 envelope and serves only the UI and the browser API. Why: the forward-auth answer is for the proxy alone (it hands out identity headers and the upstream's `response.basicauth` credentials), and the proxy in front of the login host is itself a trusted peer, so a path or peer check cannot keep clients from asking it; a port the internet cannot reach can. The shipped examples use it. In a container, set the address to one the proxy reaches (`0.0.0.0`) and do not publish the port. Unset: forward auth stays on the public listener, as before",
    },
  },
  FORWARD_AUTH_ADDRESS: { group: 'gateway', parse: text, fallback: '127.0.0.1', doc: { sameRowAs: 'FORWARD_AUTH_PORT' } },
  LOG_LEVEL: {
    group: 'gateway',
    parse: oneOf(LOG_LEVELS),
    fallback: 'info',
    doc: { default: '`info`', meaning: '`debug`, `info`, `warn`, `error`, `silent`' },
  },
});

/** Metrics and shutdown (documented with the operations group). */
export const OPERATIONS_OPTIONS = options({
  METRICS_PORT: {
    group: 'operations',
    parse: integer(0, 65535),
    fallback: 0,
    doc: { default: 'off / `0.0.0.0`', meaning: 'Prometheus endpoint `GET /metrics` on its own port' },
  },
  METRICS_ADDRESS: { group: 'operations', parse: text, fallback: '0.0.0.0', doc: { sameRowAs: 'METRICS_PORT' } },
  SHUTDOWN_TIMEOUT: {
    group: 'operations',
    parse: integer(1, 600),
    fallback: 10,
    doc: { default: '`10`', meaning: 'seconds a SIGTERM waits for in-flight requests' },
  },
});

export interface ServerConfig {
  readonly port: number;
  readonly address: string;
  /** Public URL of the gateway, no trailing slash: the primary (first) one when APP_URL lists several. */
  readonly appUrl: string;
  /**
   * Every gateway URL of APP_URL, primary first, each normalised like `appUrl` (issue 17: one
   * gateway for several root domains). One element for a single URL.
   */
  readonly appUrls: readonly string[];
  /** `TRUSTED_PROXIES`, parsed once by loadConfig into the addresses whose `X-Forwarded-For` is believed. */
  readonly trustedProxies: BlockList;
  readonly logLevel: LogLevel;
  /** Port of the separate Prometheus endpoint; null when metrics are off. */
  readonly metricsPort: number | null;
  readonly metricsAddress: string;
  /**
   * Port of the internal forward-auth listener; null keeps `/api/auth/*` on the public listener.
   * When set, the public listener answers `/api/auth/*` with 404.
   */
  readonly forwardAuthPort: number | null;
  readonly forwardAuthAddress: string;
  /** How long a SIGTERM waits for in-flight requests before giving up. */
  readonly shutdownTimeoutSeconds: number;
}

/** PORT, ADDRESS, APP_URL (required but for the demo), TRUSTED_PROXIES, LOG_LEVEL, metrics, forward auth and shutdown. */
export function readServer(r: EnvReader, demo: boolean, libraries: Pick<ConfigLibraries, 'registrableDomain'>): ServerConfig {
  const port = r.option(LISTENER_OPTIONS, 'PORT');
  // The demo prints its password: it listens on this machine only unless ADDRESS says otherwise.
  const address = demo && r.get('ADDRESS') === undefined ? '127.0.0.1' : r.option(LISTENER_OPTIONS, 'ADDRESS');
  const { appUrl, appUrls } = readAppUrls(r, demo ? `http://localhost:${port}` : undefined, libraries);
  const { list: trustedProxies, problems: proxyProblems } = buildTrustedProxies(r.option(PROXY_OPTIONS, 'TRUSTED_PROXIES'));
  r.problems.push(...proxyProblems);
  const logLevel = r.option(PROXY_OPTIONS, 'LOG_LEVEL');
  const metricsPortRaw = r.option(OPERATIONS_OPTIONS, 'METRICS_PORT');
  // Forward auth on its own listener: the proxy asks there, and the public port never answers it.
  // Loopback by default, the proxy being on the same machine; a container or pod sets an
  // address its proxy can reach, and does not publish the port.
  const forwardAuthPort = r.option(PROXY_OPTIONS, 'FORWARD_AUTH_PORT');
  const forwardAuthAddress = r.option(PROXY_OPTIONS, 'FORWARD_AUTH_ADDRESS');
  if (r.get('FORWARD_AUTH_PORT') === undefined && r.get('FORWARD_AUTH_ADDRESS') !== undefined)
    r.problems.push('FORWARD_AUTH_ADDRESS is set but FORWARD_AUTH_PORT is not');
  if (forwardAuthPort !== null) {
    if (forwardAuthPort === port) r.problems.push('FORWARD_AUTH_PORT must differ from PORT: forward auth gets a listener of its own');
    if (forwardAuthPort === metricsPortRaw) r.problems.push('FORWARD_AUTH_PORT must differ from METRICS_PORT');
  }
  return {
    port,
    address,
    appUrl,
    appUrls,
    trustedProxies,
    logLevel,
    metricsPort: metricsPortRaw === 0 ? null : metricsPortRaw,
    metricsAddress: r.option(OPERATIONS_OPTIONS, 'METRICS_ADDRESS'),
    forwardAuthPort,
    forwardAuthAddress,
    shutdownTimeoutSeconds: r.option(OPERATIONS_OPTIONS, 'SHUTDOWN_TIMEOUT'),
  };
}

/**
 * APP_URL: one URL, or a comma list of one gateway URL per protected domain (first: the primary
 * login host). Each entry gets the single-URL checks; then the list as a whole gets the
 * cookie-domain ones. `fallback` is the demo's URL.
 */
function readAppUrls(
  r: EnvReader,
  fallback: string | undefined,
  libraries: Pick<ConfigLibraries, 'registrableDomain'>,
): { appUrl: string; appUrls: readonly string[] } {
  const raw = r.option(LISTENER_OPTIONS, 'APP_URL') ?? fallback;
  if (raw === undefined) {
    r.problems.push('APP_URL is required (the public URL of the gateway, e.g. https://auth.example.com)');
    return { appUrl: '', appUrls: [''] };
  }
  const entries = raw.includes(',') ? raw.split(',').map((e) => e.trim()) : [raw];
  const listProblems = entries.map((e, i) => (e === '' ? `APP_URL entry ${i + 1} is empty: separate gateway URLs with single commas` : appUrlProblem(e)));
  const entryProblems = listProblems.filter((p): p is string => p !== null);
  if (entryProblems.length > 0) {
    r.problems.push(...entryProblems);
    return { appUrl: raw, appUrls: [raw] };
  }
  const appUrls = entries.map((e) => {
    const url = new URL(e);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  });
  r.problems.push(
    ...gatewayDomainProblems(
      appUrls.map((url) => new URL(url).hostname),
      libraries.registrableDomain,
    ),
  );
  return { appUrl: appUrls[0], appUrls };
}

/**
 * What is wrong with APP_URL, or null. Strict on purpose: a comma list was read as one URL whose
 * host was `auth.example.com,http`, and a cookie for `example.com,http` follows. Accepted: an
 * http(s) URL whose host is a DNS name (letters, digits and hyphens, labels of at most 63
 * characters, no empty label, so no trailing dot) or an IP literal, an optional port and path;
 * refused: credentials, a query, a fragment, and anything else in the host.
 */
function appUrlProblem(raw: string): string | null {
  // A list is separated by commas only (split by the caller): `https://a.example.com https://b.example.org` is a typo, not a list.
  if (/\s/.test(raw) && raw.split('://').length > 2) {
    return 'APP_URL lists several gateway URLs separated by commas (e.g. https://auth.example.com,https://auth.example.org), not by spaces';
  }
  if (/\s/.test(raw)) return 'APP_URL is not a valid URL (e.g. https://auth.example.com)';
  // `auth.example.com:8443` and `localhost:3000` parse as URLs whose scheme is the host name.
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(raw)) return `APP_URL needs a scheme: add https:// in front (APP_URL=https://${raw.replace(/\/+$/, '')})`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'APP_URL is not a valid URL (e.g. https://auth.example.com)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'APP_URL must be an http or https URL';
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '' || raw.includes('@'))
    return 'APP_URL must not carry credentials, a query or a fragment';
  if (!isHostName(url.hostname) && !isIpLiteral(url.hostname))
    return `APP_URL's host "${url.hostname}" is not a valid host name: use a DNS name (letters, digits and hyphens between dots) or an IP address`;
  return null;
}

const DNS_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A DNS host name as the URL parser leaves it (lower case, international names in punycode). */
function isHostName(host: string): boolean {
  return host.length <= 253 && host.split('.').every((label) => DNS_LABEL.test(label));
}

function addressType(ip: string): 'ipv4' | 'ipv6' | null {
  const v = isIP(ip);
  return v === 4 ? 'ipv4' : v === 6 ? 'ipv6' : null;
}

/** Parses CIDRs (or bare addresses) into a BlockList; returns the problems for those that do not parse. */
export function buildTrustedProxies(cidrs: readonly string[]): { list: BlockList; problems: string[] } {
  const list = new BlockList();
  const problems: string[] = [];
  for (const raw of cidrs) {
    const [addr, bits, extra] = raw.trim().split('/');
    const type = addressType(addr);
    const prefix = bits === undefined ? (type === 'ipv4' ? 32 : 128) : Number(bits);
    if (type === null || extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > (type === 'ipv4' ? 32 : 128)) {
      problems.push(`TRUSTED_PROXIES: "${raw}" is not an IP address or CIDR`);
      continue;
    }
    list.addSubnet(addr, prefix, type);
  }
  return { list, problems };
}
