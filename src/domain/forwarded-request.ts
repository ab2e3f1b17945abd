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
  const hostNoDot = h.replace(/\.(?=(:\d+)?$)/, '');
  const hostname = hostNoDot.startsWith('[') ? hostNoDot.slice(0, hostNoDot.indexOf(']') + 1) : hostNoDot.replace(/:\d+$/, '');
  let url: URL;
  try {
    url = new URL(`${p}://${hostNoDot}${u}`);
  } catch {
    // The path is already vetted; what the URL parser still refuses is the host (a port over 65535, a bad IPv6).
    return err({ code: 'malformed', field: hostField });
  }
  if (url.username !== '' || url.password !== '') return err({ code: 'malformed', field: hostField });
  return ok({ proto: p, hostname, host: hostNoDot, uri: u, url: `${p}://${hostNoDot}${u}` });
}
