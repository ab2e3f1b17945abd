import type { IncomingHttpHeaders } from 'node:http';

/** A single header value; repeated headers are joined by comma as HTTP says they may be. */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}
