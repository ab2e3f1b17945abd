import { request, type IncomingHttpHeaders } from 'node:http';

export interface HostReply {
  readonly status: number;
  readonly location: string | null;
  readonly cookies: string[];
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

/** What a test may set on a {@link hostRequest}: the session cookie, a JSON body (sets its content type), other headers. */
export interface HostRequestOptions {
  readonly cookie?: string;
  readonly method?: string;
  readonly body?: string;
  readonly headers?: Record<string, string>;
}

/**
 * One request to a gateway on 127.0.0.1 as a proxy in front of `origin` passes it on: the Host
 * header names that gateway URL (issue 17 tells its gateway URLs apart by Host).
 */
export function hostRequest(gatewayUrl: string, origin: string, path: string, options: HostRequestOptions = {}): Promise<HostReply> {
  const port = Number(new URL(gatewayUrl).port);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: new URL(origin).host, ...(options.headers ?? {}) };
    if (options.cookie !== undefined) headers.cookie = options.cookie;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          location: typeof res.headers.location === 'string' ? res.headers.location : null,
          cookies: res.headers['set-cookie'] ?? [],
          body: Buffer.concat(chunks).toString('utf8'),
          headers: res.headers,
        }),
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The value of cookie `name` set by a reply, or null. */
export function setCookieValue(reply: HostReply, name: string): string | null {
  const line = reply.cookies.find((c) => c.startsWith(`${name}=`));
  return line === undefined ? null : line.slice(name.length + 1).split(';')[0];
}

/** A path with its query, from a URL the gateway redirected to. */
export function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}
