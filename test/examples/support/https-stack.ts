import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
/** The second root domain's login host and application, served only with `secondDomain` (see {@link ExampleStackOptions}). */
export const OTHER_HOSTS = { auth: 'auth.other.test', app: 'app.other.test' } as const;
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

/** What a test asks of the stack beyond the default (alice and carol, one root domain). */
export interface ExampleStackOptions {
  /** More entries of users.yaml, each a YAML flow mapping, e.g. `{ username: dora, passkey_only: true }`. */
  readonly users?: readonly string[];
  /** More gateway environment (OIDC_CLIENTS_*, ...). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * A second root domain, as docs/domains.md ("One login for several domains") sets it up: APP_URL lists
   * `https://auth.other.test:<port>` after the primary, and the proxy serves that login host (nginx:
   * AUTH_HOST lists both; Caddy: AUTH_ADDRESS lists both) and an application on `app.other.test`.
   */
  readonly secondDomain?: boolean;
  /** Runs before the gateway starts (an administrator's CLI step on the embedded store), with the gateway's environment. */
  readonly beforeStart?: (env: Readonly<Record<string, string>>) => Promise<void>;
}

export interface ExampleStack {
  readonly proxy: ExampleProxy;
  readonly port: number;
  readonly httpPort: number;
  /** The primary gateway URL, `https://auth.example.test:<port>` (APP_URL's first entry). */
  readonly appUrl: string;
  /** The second root domain's gateway URL, with `secondDomain`. */
  readonly otherUrl: string | null;
  /** The throwaway directory (gateway.log, data/, the proxy's files). */
  readonly dir: string;
  /** The CA that signed the proxy's certificate: the test's own for nginx, Caddy's internal root for caddy. */
  readonly ca: Buffer;
  readonly tap: ForwardAuthTap;
  /** Requests the application received that carried `X-Probe: probe`. */
  received(probe: string): Received[];
  /** Requests the application received for `host` (the proxy's Host header, nginx's without the port) and this path with its query. */
  receivedAt(host: string, url: string): Received[];
  /**
   * The base64 SHA-256 of the public keys that may sign the proxy's certificates (the self-signed
   * certificate for nginx; Caddy's internal root and intermediate), for Chromium's
   * `--ignore-certificate-errors-spki-list`: Chromium then treats them as trusted, with no
   * certificate error (WebAuthn refuses pages with one).
   */
  spkiHashes(): string[];
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
export async function startExampleStack(proxy: ExampleProxy, options: ExampleStackOptions = {}): Promise<ExampleStack> {
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
        ...(options.users ?? []).map((u) => `  - ${u}`),
        '',
      ].join('\n'),
    );
    const appUrl = `https://${HOSTS.auth}:${port}`;
    const otherUrl = options.secondDomain === true ? `https://${OTHER_HOSTS.auth}:${port}` : null;
    const env: Record<string, string> = {
      PORT: String(gatewayPort),
      FORWARD_AUTH_PORT: String(forwardAuthPort),
      APP_URL: otherUrl === null ? appUrl : `${appUrl},${otherUrl}`,
      SECRET: TEST_SECRET,
      USERS_FILE: join(dir, 'users.yaml'),
      ACCESS_CONFIG: join(dir, 'access.yaml'),
      DATA_DIR: join(dir, 'data'),
      LOG_LEVEL: 'warn',
      ...options.env,
    };
    await options.beforeStart?.(env);
    const gateway = startGatewayProcess(env, { logFile: join(dir, 'gateway.log') });
    children.push(gateway);
    await waitForHttp(gateway, gatewayPort, `${HOSTS.auth}:${port}`);

    // Every login host in one list, as the README says: nginx's AUTH_HOST separated by spaces;
    // Caddy's AUTH_ADDRESS separated by commas (the support code puts the scheme before the first
    // and the port after the last, so the list is spelled for that).
    const authHost =
      otherUrl === null ? HOSTS.auth : proxy === 'nginx' ? `${HOSTS.auth} ${OTHER_HOSTS.auth}` : `${HOSTS.auth}:${port}, https://${OTHER_HOSTS.auth}`;
    const names = [...Object.values(HOSTS), ...(otherUrl === null ? [] : Object.values(OTHER_HOSTS))];
    const layout: ProxyLayout = {
      port,
      authHost,
      gatewayPort,
      forwardAuthPort: tap.port,
      apps: [
        { host: HOSTS.app, upstreamPort: recorder.port },
        { host: HOSTS.svc, upstreamPort: recorder.port },
        ...(otherUrl === null ? [] : [{ host: OTHER_HOSTS.app, upstreamPort: recorder.port }]),
      ],
      tls: { ...(proxy === 'nginx' ? selfSignedCertificate(dir, names) : { certificate: '', key: '' }), httpPort },
    };
    const proxyDir = join(dir, proxy);
    children.push(proxy === 'nginx' ? await startNginx(proxyDir, layout) : await startCaddy(proxyDir, layout));
    const pki = join(proxyDir, 'data', 'caddy', 'pki', 'authorities', 'local');
    const ca = readFileSync(proxy === 'nginx' ? layout.tls!.certificate : join(pki, 'root.crt'));
    const signers = proxy === 'nginx' ? [layout.tls!.certificate] : [join(pki, 'root.crt'), join(pki, 'intermediate.crt')];

    return {
      proxy,
      port,
      httpPort,
      appUrl,
      otherUrl,
      dir,
      ca,
      tap: tap.tap,
      received: (probe) => recorder.seen.filter((r) => r.headers['x-probe'] === probe),
      receivedAt: (host, url) => recorder.seen.filter((r) => r.url === url && (r.headers.host ?? '').replace(/:\d+$/, '') === host),
      spkiHashes: () =>
        signers
          .filter((file) => existsSync(file))
          .map((file) =>
            createHash('sha256')
              .update(new X509Certificate(readFileSync(file)).publicKey.export({ type: 'spki', format: 'der' }))
              .digest('base64'),
          ),
      fetch: (host, path, init) => send(true, port, host, `${host}:${port}`, path, ca, init),
      fetchPlain: (host, path) => send(false, httpPort, host, `${host}:${httpPort}`, path, undefined),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
