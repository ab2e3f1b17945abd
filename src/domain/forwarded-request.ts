import { err, ok, type Result } from './result';

/** What a proxy tells the gateway about the request it is asking about. */
export interface ForwardedHeaders {
  readonly proto?: string;
  readonly host?: string;
  readonly uri?: string;
  /** nginx's `X-Original-URL`: the whole original URL in one header. */
  readonly originalUrl?: string;
}

/** The request a proxy asks about, normalised: lower-case host, port kept, path and query as sent. */
export interface OriginalRequest {
  readonly proto: 'http' | 'https';
  /** Lower-case host name without port or trailing dot. */
  readonly hostname: string;
  /** `host[:port]` as it goes back into a URL. */
  readonly host: string;
  /** Path and query, starting with `/`. */
  readonly uri: string;
  readonly url: string;
}

export type ForwardedError = { readonly code: 'missing' } | { readonly code: 'malformed'; readonly field: string };

const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?(?::\d{1,5})?$|^\[[0-9a-f:.]+\](?::\d{1,5})?$/;

function firstValue(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // Proxies that append to a chain send "a, b": the first is the client's view.
  const comma = value.indexOf(',');
  return (comma === -1 ? value : value.slice(0, comma)).trim();
}

/** Reads the original request from forwarded headers; refuses anything that is not a well-formed http(s) URL. */
export function parseForwarded(headers: ForwardedHeaders): Result<OriginalRequest, ForwardedError> {
  let proto = firstValue(headers.proto);
  let host = firstValue(headers.host);
  let uri = headers.uri;
  // Problems are reported against the header the proxy actually sent.
  let hostField = 'X-Forwarded-Host';
  let uriField = 'X-Forwarded-Uri';
  if (host === undefined && headers.originalUrl !== undefined) {
    const m = /^(https?):\/\/([^/?#]*)([^#]*)/i.exec(headers.originalUrl.trim());
    if (m === null) return err({ code: 'malformed', field: 'X-Original-URL' });
    proto = m[1];
    host = m[2];
    uri = m[3] === '' ? '/' : m[3];
    hostField = uriField = 'X-Original-URL';
  }
  if (host === undefined || host === '') {
    return proto === undefined && uri === undefined ? err({ code: 'missing' }) : err({ code: 'malformed', field: 'X-Forwarded-Host' });
  }
  const p = (proto ?? 'http').toLowerCase();
  if (p !== 'http' && p !== 'https') return err({ code: 'malformed', field: 'X-Forwarded-Proto' });
  const h = host.toLowerCase();
  if (h.length > 255 || !HOST.test(h)) return err({ code: 'malformed', field: hostField });
  const u = uri === undefined || uri === '' ? '/' : uri;
  if (u.length > 8192 || u[0] !== '/' || u.startsWith('//') || /[\u0000-\u0020\u007f\\]/.test(u)) {
    return err({ code: 'malformed', field: uriField });
  }
  const checked = checkedHost(h);
  // What the URL parser refuses once the path is vetted is the host (a port over 65535, a bad IPv6).
  if (checked === null) return err({ code: 'malformed', field: hostField });
  return ok({ proto: p, hostname: checked.hostname, host: checked.host, uri: u, url: `${p}://${checked.host}${u}` });
}

interface CheckedHost {
  readonly host: string;
  readonly hostname: string;
}

/**
 * Hosts already checked, so the hot path does not run the URL parser on every request: a gateway
 * sees few distinct hosts. Bounded (emptied when full), and a pure function's memo: the answer
 * for a host never changes.
 */
const CHECKED_HOSTS = new Map<string, CheckedHost | null>();
const CHECKED_HOSTS_MAX = 1024;

/**
 * Normalises a lower-case host that passed the HOST pattern and lets the WHATWG URL parser have
 * the last word (bad ports, bad IPv4 or IPv6 literals, bad punycode, userinfo); null when refused.
 * The path cannot fail that parser once it passed the checks above, so the verdict depends on the host alone.
 */
function checkedHost(h: string): CheckedHost | null {
  const known = CHECKED_HOSTS.get(h);
  if (known !== undefined) return known;
  const host = h.replace(/\.(?=(:\d+)?$)/, '');
  const hostname = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  let checked: CheckedHost | null = { host, hostname };
  try {
    const url = new URL(`http://${host}/`);
    if (url.username !== '' || url.password !== '') checked = null;
  } catch {
    checked = null;
  }
  if (CHECKED_HOSTS.size >= CHECKED_HOSTS_MAX) CHECKED_HOSTS.clear();
  CHECKED_HOSTS.set(h, checked);
  return checked;
}
