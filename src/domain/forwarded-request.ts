import { err, ok, type Result } from './result';

/** The proxies the gateway answers; each names the original request in its own headers. */
export type ProxyKind = 'traefik' | 'nginx' | 'caddy';

/**
 * What a proxy tells the gateway about the request it is asking about. Which fields count depends
 * on `proxy`: a proxy forwards the client's own headers next to the ones it sets, so only the ones
 * that proxy is configured to set may name the request.
 */
export interface ForwardedHeaders {
  readonly proxy: ProxyKind;
  /** traefik and caddy: `X-Forwarded-Proto`, `-Host`, `-Uri`, `-Method`. Never read for nginx. */
  readonly proto?: string;
  readonly host?: string;
  readonly uri?: string;
  readonly method?: string;
  /** nginx: `X-Original-URL` (the whole original URL) and `X-Original-Method`. Never read for traefik or caddy. */
  readonly originalUrl?: string;
  readonly originalMethod?: string;
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
  /** The original method when the proxy named it, else null. */
  readonly method: string | null;
}

/**
 * Why the forwarded headers name no request:
 * - `absent`: traefik or caddy sent none of theirs (decided without a host);
 * - `missing`: nginx sent no `X-Original-URL`, the one header its endpoint reads;
 * - `malformed`: the header is not a well-formed value;
 * - `repeated`: the header came more than once or holds a list, so which value the proxy meant
 *   (and which one the client wrote) cannot be told apart.
 */
export type ForwardedError = { readonly code: 'absent' } | { readonly code: 'missing' | 'malformed' | 'repeated'; readonly field: string };

const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?(?::\d{1,5})?$/;
const HOST_V6 = /^\[[0-9a-f:.]+\](?::\d{1,5})?$/;
const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;
const ORIGINAL_URL = /^(https?):\/\/([^/?#]*)([^#]*)/i;

/**
 * True when a single-valued field holds a list. A repeated header reaches us joined with ", "
 * (that is how HTTP folds repeats); a host, proto or method never holds a comma, and a request
 * target never holds a space, so this costs one scan and no allocation.
 */
function isList(value: string, commaAllowed: boolean): boolean {
  const comma = value.indexOf(',');
  if (comma === -1) return false;
  if (!commaAllowed) return true;
  return comma === 0 || value.indexOf(', ') !== -1 || value.charCodeAt(value.length - 1) === 44;
}

/**
 * Reads the original request from the headers of the proxy that asks; refuses anything that is not
 * a single well-formed http(s) URL. nginx: `X-Original-URL` only (required); traefik and caddy:
 * `X-Forwarded-*` only.
 */
export function parseForwarded(headers: ForwardedHeaders): Result<OriginalRequest, ForwardedError> {
  let proto: string | undefined;
  let host: string | undefined;
  let uri: string | undefined;
  let method: string | undefined;
  // Problems are reported against the header the proxy actually sent.
  let protoField = 'X-Forwarded-Proto';
  let hostField = 'X-Forwarded-Host';
  let uriField = 'X-Forwarded-Uri';
  let methodField = 'X-Forwarded-Method';
  if (headers.proxy === 'nginx') {
    const original = headers.originalUrl;
    if (original === undefined) return err({ code: 'missing', field: 'X-Original-URL' });
    protoField = hostField = uriField = 'X-Original-URL';
    methodField = 'X-Original-Method';
    if (isList(original, true)) return err({ code: 'repeated', field: uriField });
    const m = ORIGINAL_URL.exec(original.trim());
    if (m === null) return err({ code: 'malformed', field: uriField });
    proto = m[1];
    host = m[2];
    uri = m[3] === '' ? '/' : m[3];
    method = headers.originalMethod;
  } else {
    proto = headers.proto;
    host = headers.host;
    uri = headers.uri;
    method = headers.method;
    if (host === undefined && proto === undefined && uri === undefined) return err({ code: 'absent' });
    if (host !== undefined && isList(host, false)) return err({ code: 'repeated', field: hostField });
    if (proto !== undefined && isList(proto, false)) return err({ code: 'repeated', field: protoField });
    if (uri !== undefined && isList(uri, true)) return err({ code: 'repeated', field: uriField });
    if (host !== undefined) host = host.trim();
    if (proto !== undefined) proto = proto.trim();
  }
  if (method !== undefined) {
    if (isList(method, false)) return err({ code: 'repeated', field: methodField });
    if (!METHOD.test(method)) return err({ code: 'malformed', field: methodField });
  }
  if (host === undefined || host === '') return err({ code: 'malformed', field: hostField });
  const p = (proto ?? 'http').toLowerCase();
  if (p !== 'http' && p !== 'https') return err({ code: 'malformed', field: protoField });
  const h = host.toLowerCase();
  // A host seen before passed these patterns then (only such hosts are remembered): skip them.
  const seen = CHECKED_HOSTS.get(h);
  if (seen === undefined && (h.length > 255 || !(HOST.test(h) || HOST_V6.test(h)))) return err({ code: 'malformed', field: hostField });
  const u = uri === undefined || uri === '' ? '/' : uri;
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  if (u.length > 8192 || u[0] !== '/' || u.startsWith('//') || /[\u0000-\u0020\u007f\\]/.test(u)) {
    return err({ code: 'malformed', field: uriField });
  }
  const checked = seen === undefined ? checkedHost(h) : seen;
  // What the URL parser refuses once the path is vetted is the host (a port over 65535, a bad IPv6).
  if (checked === null) return err({ code: 'malformed', field: hostField });
  return ok({ proto: p, hostname: checked.hostname, host: checked.host, uri: u, url: `${p}://${checked.host}${u}`, method: method ?? null });
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
