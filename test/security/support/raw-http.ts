import { connect } from 'node:net';

/** An answer read off the socket; `status` is null when the server closed without answering. */
export interface RawAnswer {
  readonly status: number | null;
  readonly headers: Readonly<Record<string, string>>;
  /** Every Set-Cookie line of the first answer. */
  readonly setCookies: readonly string[];
  readonly body: string;
  /** Every status line the connection carried (pipelined or smuggled requests give several). */
  readonly statuses: readonly number[];
  /** The whole byte stream, for a failure message. */
  readonly text: string;
}

function decodeChunked(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const nl = rest.indexOf('\r\n');
    if (nl === -1) return out + rest;
    const size = parseInt(rest.slice(0, nl), 16);
    if (!Number.isFinite(size) || size === 0) return out;
    out += rest.slice(nl + 2, nl + 2 + size);
    rest = rest.slice(nl + 4 + size);
  }
}

/**
 * Sends `request` byte for byte (any request line, duplicated or conflicting headers) to
 * 127.0.0.1:`port`, and reads until the server closes or `timeoutMs` passes. The first answer is
 * parsed; a HEAD-less answer's body is de-chunked when needed.
 */
export function rawHttp(port: number, request: string, timeoutMs = 5000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      const statuses = [...data.matchAll(/(?:^|\r\n)HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]));
      const end = data.indexOf('\r\n\r\n');
      if (!data.startsWith('HTTP/') || end === -1) return resolve({ status: null, headers: {}, setCookies: [], body: '', statuses, text: data });
      const [statusLine, ...lines] = data.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      const setCookies: string[] = [];
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
        if (name === 'set-cookie') setCookies.push(value);
      }
      let body = data.slice(end + 4);
      if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = decodeChunked(body);
      else if (headers['content-length'] !== undefined) body = body.slice(0, Number(headers['content-length']));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, setCookies, body, statuses, text: data });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('error', finish);
    socket.on('close', finish);
    socket.write(request);
  });
}

/** A GET (or other method) request head with `Connection: close`, headers written exactly as given (repeats allowed). */
export function requestHead(method: string, target: string, headers: ReadonlyArray<readonly [string, string]>, body = ''): string {
  const lines = [`${method} ${target} HTTP/1.1`, ...headers.map(([n, v]) => `${n}: ${v}`), 'Connection: close', '', body];
  return lines.join('\r\n');
}
