import { isIP, connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { ProbeAnswer, ProbeRequest, ProbeTransport } from './probe-transport';

export interface SocketTransportOptions {
  /** Accept any TLS certificate (a self-signed test proxy). Off unless the operator says `--insecure`. */
  readonly insecure: boolean;
  /** Host name → address to connect to instead of asking DNS; a key `*.example.com` covers its subdomains. */
  readonly resolve: ReadonlyMap<string, string>;
  readonly timeoutMs: number;
}

/** An answer larger than this is cut: the doctor reads statuses, headers and markers, never whole pages. */
const MAX_BYTES = 1024 * 1024;

/** The address to connect to for `hostname`: an explicit mapping wins over DNS. */
export function addressFor(hostname: string, resolve: ReadonlyMap<string, string>): string {
  const name = hostname.toLowerCase();
  const exact = resolve.get(name);
  if (exact !== undefined) return exact;
  for (const [pattern, address] of resolve) {
    if (pattern.startsWith('*.') && name.endsWith(pattern.slice(1))) return address;
  }
  return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
}

/**
 * Raw HTTP/1.1 over node:net and node:tls: the doctor must send what no HTTP client library lets
 * it send (a Host naming another server than the TLS name, absolute-form targets, `..;` and
 * encoded dot-segments left as they are) and must tell "closed without an answer" from a refusal.
 * One request per connection (`Connection: close`), so the answer ends where the stream ends.
 */
export function socketProbeTransport(options: SocketTransportOptions): ProbeTransport {
  return (request) =>
    new Promise<ProbeAnswer>((resolve) => {
      const host = addressFor(request.hostname, options.resolve);
      const servername = isIP(request.hostname.replace(/^\[|\]$/g, '')) === 0 ? request.hostname : undefined;
      let settled = false;
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (answer: ProbeAnswer): void => {
        if (settled) return;
        settled = true;
        socket.destroy();
        resolve(answer);
      };
      const socket: Socket =
        request.scheme === 'https'
          ? connectTls({ host, port: request.port, servername, rejectUnauthorized: !options.insecure, ALPNProtocols: ['http/1.1'] })
          : connectTcp({ host, port: request.port });
      socket.setTimeout(options.timeoutMs, () => finish({ kind: 'unreachable', reason: `no answer within ${Math.round(options.timeoutMs / 1000)} seconds` }));
      socket.once(request.scheme === 'https' ? 'secureConnect' : 'connect', () => socket.write(serialise(request)));
      socket.on('data', (chunk: Buffer) => {
        if (size >= MAX_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
        // A server that keeps the connection open despite `Connection: close` must not cost a timeout.
        if (isComplete(Buffer.concat(chunks), request.method)) end();
      });
      const end = (): void => {
        if (settled) return;
        if (size === 0) return finish({ kind: 'closed' });
        const parsed = parseResponse(Buffer.concat(chunks));
        finish(parsed ?? { kind: 'unreachable', reason: 'the answer was not HTTP/1.1' });
      };
      socket.once('end', end);
      socket.once('close', end);
      socket.once('error', (e: NodeJS.ErrnoException) => {
        // A reset after the request went out, with nothing read, is a refusal to answer (nginx 444 may reset).
        if (size === 0 && (e.code === 'ECONNRESET' || e.code === 'EPIPE') && socket.bytesWritten > 0) return finish({ kind: 'closed' });
        if (size > 0) return end();
        finish({
          kind: 'unreachable',
          reason: describeError(e, request),
          ...(UNTRUSTED_CERTIFICATE.has(e.code ?? '') ? { failure: 'untrusted_certificate' } : {}),
        });
      });
    });
}

function serialise(request: ProbeRequest): string {
  const lines = [`${request.method} ${request.target} HTTP/1.1`];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (request.body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(request.body)}`);
  lines.push('Connection: close', '', request.body ?? '');
  return lines.join('\r\n');
}

/** True once `raw` holds a whole response: its head, and the body its framing announces. */
export function isComplete(raw: Buffer, method: string): boolean {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd === -1) return false;
  const head = raw.subarray(0, headEnd).toString('latin1');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  if (method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200)) return status >= 200;
  const body = raw.length - headEnd - 4;
  if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) return raw.subarray(raw.length - 5).toString('latin1') === '0\r\n\r\n';
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  return length !== null && body >= Number(length[1]);
}

/** Reads a status line, headers and a body (plain or chunked) from a whole response. */
export function parseResponse(raw: Buffer): ProbeAnswer | null {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd === -1) return null;
  const head = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '');
  if (status === null) return null;
  const headers = new Map<string, string[]>();
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const list = headers.get(name) ?? [];
    list.push(line.slice(colon + 1).trim());
    headers.set(name, list);
  }
  let body = raw.subarray(headEnd + 4);
  if ((headers.get('transfer-encoding')?.[0] ?? '').toLowerCase().includes('chunked')) body = dechunk(body);
  return { kind: 'answer', status: Number(status[1]), headers, body: body.toString('utf8') };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size <= 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Node's codes for a certificate chain or name this machine does not accept. */
const UNTRUSTED_CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function describeError(e: NodeJS.ErrnoException, request: ProbeRequest): string {
  const where = `${request.hostname}:${request.port}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `nothing listens on ${where}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${request.hostname} does not resolve (give --resolve ${request.hostname}:<address> to probe it by address)`;
    default:
      if (UNTRUSTED_CERTIFICATE.has(e.code ?? ''))
        return `the TLS certificate of ${where} is not trusted (${e.code}); for a test proxy with a self-signed certificate, add --insecure`;
      return `${where}: ${e.code ?? 'connection failed'}`;
  }
}
