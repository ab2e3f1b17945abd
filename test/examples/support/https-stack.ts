import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { createServer as createTcpServer, connect, type AddressInfo, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashOf, TEST_SECRET } from '../../support/credentials';
import { freePorts } from '../../support/net';
import { selfSignedCertificate } from '../../support/tls';
import { startGatewayProcess, waitForHttp, type Child } from '../../support/process';
import { startCaddy, startNginx, type ProxyLayout } from '../../e2e/support/proxies';

export type ExampleProxy = 'nginx' | 'caddy';

export const HOSTS = { auth: 'auth.example.test', app: 'app.example.test', svc: 'svc.example.test' } as const;
export const PASSWORDS = { alice: 'alice-Pa55word-examples!', carol: 'carol-Pa55word-examples!' } as const;
/** The credentials an access rule (`response.basicauth`) gives the svc application. */
export const SVC_PASSWORD = 'svc-upstream-password-7c1e';

/** What the application received for one request (every header, as Node parsed them). */
export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What the tap between the proxy and the forward-auth listener saw. */
export interface ForwardAuthTap {
  /** TCP connections the proxy opened to forward auth. */
  connections: number;
  /** The method of every request it sent, in order. */
  readonly methods: string[];
}

export interface ExampleStack {
  readonly proxy: ExampleProxy;
  readonly port: number;
  readonly httpPort: number;
  readonly appUrl: string;
  /** The CA that signed the proxy's certificate: the test's own for nginx, Caddy's internal root for caddy. */
  readonly ca: Buffer;
  readonly tap: ForwardAuthTap;
  /** Requests the application received that carried `X-Probe: probe`. */
  received(probe: string): Received[];
  /** HTTPS to `host` through the proxy, the certificate verified against `ca` for that name. */
  fetch(host: string, path: string, init?: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Answer>;
  /** Plain HTTP to `host` on the proxy's HTTP port. */
  fetchPlain(host: string, path: string): Promise<Answer>;
  stop(): Promise<void>;
}

/** The protected application: answers 200 with what it received, and remembers it by X-Probe. */
async function startRecorder(): Promise<{ port: number; seen: Received[]; close(): Promise<void> }> {
  const seen: Received[] = [];
  const server: Server = createServer((req, res) => {
    const record = { method: req.method ?? '', url: req.url ?? '', headers: req.headers };
    seen.push(record);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ app: 'recorder', url: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A TCP tap in front of the forward-auth listener: counts the proxy's connections and reads each request line's method. */
async function startTap(target: number): Promise<{ port: number; tap: ForwardAuthTap; close(): Promise<void> }> {
  const tap: ForwardAuthTap = { connections: 0, methods: [] };
  const sockets = new Set<import('node:net').Socket>();
  const server: TcpServer = createTcpServer((client) => {
    tap.connections += 1;
    const upstream = connect(target, '127.0.0.1');
    sockets.add(client).add(upstream);
    let pending = '';
    client.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      // Request heads only: forward auth requests carry no body here.
      let end: number;
      while ((end = pending.indexOf('\r\n\r\n')) !== -1) {
        tap.methods.push(pending.slice(0, pending.indexOf(' ')));
        pending = pending.slice(end + 4);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const close = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    tap,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function send(
  secure: boolean,
  port: number,
  host: string,
  hostHeader: string,
  path: string,
  ca: Buffer | undefined,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options = {
      host: '127.0.0.1',
      port,
      path,
      method: init.method ?? 'GET',
      headers: { host: hostHeader, ...(init.headers ?? {}) },
      agent: false as const,
    };
    const onAnswer = (res: import('node:http').IncomingMessage): void => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    };
    // The certificate is verified for the host name, against the CA the example's instructions name.
    const req = secure ? httpsRequest({ ...options, servername: host, ca, rejectUnauthorized: true }, onAnswer) : httpRequest(options, onAnswer);
    req.on('error', reject);
    req.end(init.body);
  });
}

const RULES = (passwordFile: string): string => `
default_policy: allow_authenticated
apps:
  svc:
    domain: [${HOSTS.svc}]
    response:
      basicauth: { username: svc, password_file: ${passwordFile} }
      assertion: true
`;

/**
 * The built gateway (forward auth on its internal listener, behind a counting tap), a recording
 * application, and nginx or Caddy run from `examples/` over HTTPS as an operator sets them up:
 * nginx rendered by `examples/nginx/render.sh` with a self-signed certificate, Caddy's Caddyfile
 * unchanged with its internal CA. Alice has the group `admin`; Carol has no group at all.
 */
export async function startExampleStack(proxy: ExampleProxy): Promise<ExampleStack> {
  const dir = mkdtempSync(join(tmpdir(), `portcullis-examples-${proxy}-`));
  const children: Child[] = [];
  const closers: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    for (const child of children.reverse()) await child.stop();
    for (const close of closers.reverse()) await close().catch(() => undefined);
    if (process.env.E2E_KEEP_DIR === undefined) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const recorder = await startRecorder();
    closers.push(recorder.close);
    const [gatewayPort, forwardAuthPort, port, httpPort] = await freePorts(4);
    const tap = await startTap(forwardAuthPort);
    closers.push(tap.close);

    writeFileSync(join(dir, 'svc-password'), `${SVC_PASSWORD}\n`);
    writeFileSync(join(dir, 'access.yaml'), RULES(join(dir, 'svc-password')));
    writeFileSync(
      join(dir, 'users.yaml'),
      [
        'users:',
        `  - { username: alice, password: "${hashOf(PASSWORDS.alice)}", groups: [admin] }`,
        `  - { username: carol, password: "${hashOf(PASSWORDS.carol)}" }`,
        '',
      ].join('\n'),
    );
    const appUrl = `https://${HOSTS.auth}:${port}`;
    const gateway = startGatewayProcess(
      {
        PORT: String(gatewayPort),
        FORWARD_AUTH_PORT: String(forwardAuthPort),
        APP_URL: appUrl,
        SECRET: TEST_SECRET,
        USERS_FILE: join(dir, 'users.yaml'),
        ACCESS_CONFIG: join(dir, 'access.yaml'),
        LOG_LEVEL: 'warn',
      },
      { logFile: join(dir, 'gateway.log') },
    );
    children.push(gateway);
    await waitForHttp(gateway, gatewayPort, `${HOSTS.auth}:${port}`);

    const layout: ProxyLayout = {
      port,
      authHost: HOSTS.auth,
      gatewayPort,
      forwardAuthPort: tap.port,
      apps: [
        { host: HOSTS.app, upstreamPort: recorder.port },
        { host: HOSTS.svc, upstreamPort: recorder.port },
      ],
      tls: { ...(proxy === 'nginx' ? selfSignedCertificate(dir, Object.values(HOSTS)) : { certificate: '', key: '' }), httpPort },
    };
    const proxyDir = join(dir, proxy);
    children.push(proxy === 'nginx' ? await startNginx(proxyDir, layout) : await startCaddy(proxyDir, layout));
    const ca = readFileSync(proxy === 'nginx' ? layout.tls!.certificate : join(proxyDir, 'data', 'caddy', 'pki', 'authorities', 'local', 'root.crt'));

    return {
      proxy,
      port,
      httpPort,
      appUrl,
      ca,
      tap: tap.tap,
      received: (probe) => recorder.seen.filter((r) => r.headers['x-probe'] === probe),
      fetch: (host, path, init) => send(true, port, host, `${host}:${port}`, path, ca, init),
      fetchPlain: (host, path) => send(false, httpPort, host, `${host}:${httpPort}`, path, undefined),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
