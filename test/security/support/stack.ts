import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { hashOf, TEST_SECRET } from '../../support/credentials';
import { freePort, freePorts } from '../../support/net';
import { startChild, startGatewayProcess, waitForHttp, type Child } from '../../support/process';
import { fillTemplate, startCaddy, startNginx } from '../../e2e/support/proxies';
import { startKoaApp, type Served } from './koa-app';
import { rawHttp, requestHead } from './raw-http';

/** The shipped examples, and nginx wired like ingress-nginx's auth-url (not shipped; see its template). */
export type ProxyName = 'nginx' | 'caddy' | 'ingress-nginx';
export type AppName = 'koa' | 'flask';

/** Host names; every one resolves to 127.0.0.1 because the tests connect there themselves. */
export const HOSTS = {
  auth: 'auth.example.test',
  koa: 'koa.example.test',
  flask: 'flask.example.test',
  /** Claimed by no application: the rules' default (every logged-in person passes) applies to it. */
  open: 'open.example.test',
  /** Known to no proxy. */
  unknown: 'unknown.example.test',
} as const;

export const PASSWORDS = { alice: 'alice-Adm1n-pa55word!', bob: 'bob-N0t-admin-pa55word!' } as const;
/** The upstream's Basic password of `response.basicauth`: only the proxy may ever see it. */
export const UPSTREAM_BASIC_PASSWORD = 'upstream-basic-secret-5f2a9c';

/**
 * Both applications are admin-only but for `/public/`; 10.9.0.0/16 may pass without login (so a
 * client that chooses its own address would be let in). Hosts claimed by neither application fall
 * to `allow_authenticated`.
 */
const RULES = (passwordFile: string): string => `
default_policy: allow_authenticated
apps:
  koa:
    domain: [${HOSTS.koa}]
    oauth: { groups: [admin] }
    path: { allow: ["^/public/"] }
    ip: { bypass: ["10.9.0.0/16"] }
    response:
      basicauth: { username: svc, password_file: ${passwordFile} }
  flask:
    domain: [${HOSTS.flask}]
    oauth: { groups: [admin] }
    path: { allow: ["^/public/"] }
    ip: { bypass: ["10.9.0.0/16"] }
`;

export interface SecurityStack {
  readonly dir: string;
  readonly gatewayPort: number;
  readonly forwardAuthPort: number;
  /** Port of each proxy on 127.0.0.1; every host is served on it. */
  readonly proxies: Readonly<Record<ProxyName, number>>;
  readonly upstreams: Readonly<Record<AppName, number>>;
  /** What the upstream served for requests carrying `X-Probe: probe`, asked straight (not through a proxy). */
  served(app: AppName, probe: string): Promise<Served[]>;
  /** Every line the gateway logged so far. */
  gatewayLog(): string;
  stop(): Promise<void>;
}

/** What a suite adds to the stack: more users-file lines (YAML list items) and gateway variables. */
export interface StackOptions {
  readonly users?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

function python(): string {
  return process.env.PYTHON ?? 'python3';
}

/**
 * The whole chain as deployed: the built gateway (`dist/src/main.js`) with forward auth on its own
 * loopback listener, a Koa and a Flask upstream, and nginx and Caddy configured from
 * `examples/` (filled in as an operator would), all on free loopback ports.
 */
export async function startSecurityStack(extra: StackOptions = {}): Promise<SecurityStack> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-security-'));
  const children: Child[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    for (const child of children.reverse()) await child.stop();
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
    if (process.env.E2E_KEEP_DIR === undefined) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const koa = await startKoaApp();
    cleanups.push(() => koa.close());

    const flaskPort = await freePort();
    const flask = startChild('flask', python(), [join(__dirname, 'flask_app.py'), String(flaskPort)], {
      env: { PATH: process.env.PATH, PYTHONUNBUFFERED: '1' },
      logFile: join(dir, 'flask.log'),
    });
    children.push(flask);

    const passwordFile = join(dir, 'upstream-password');
    writeFileSync(passwordFile, `${UPSTREAM_BASIC_PASSWORD}\n`);
    writeFileSync(join(dir, 'access.yaml'), RULES(passwordFile));
    writeFileSync(
      join(dir, 'users.yaml'),
      [
        'users:',
        `  - { username: alice, password: "${hashOf(PASSWORDS.alice)}", groups: [admin] }`,
        `  - { username: bob, password: "${hashOf(PASSWORDS.bob)}", groups: [staff] }`,
        ...(extra.users ?? []),
        '',
      ].join('\n'),
    );

    const [gatewayPort, forwardAuthPort, nginxPort, caddyPort, ingressPort] = await freePorts(5);
    const gateway = startGatewayProcess(
      {
        PORT: String(gatewayPort),
        FORWARD_AUTH_PORT: String(forwardAuthPort),
        APP_URL: `http://${HOSTS.auth}:${nginxPort}`,
        SECRET: TEST_SECRET,
        USERS_FILE: join(dir, 'users.yaml'),
        ACCESS_CONFIG: join(dir, 'access.yaml'),
        // Everything the gateway would ever write, for the secrets-in-logs regression.
        LOG_LEVEL: 'debug',
        // A generic provider that is never contacted: /api/oauth/url only builds its URL.
        GENERIC_CLIENT_ID: 'security-suite',
        GENERIC_CLIENT_SECRET: 'security-suite-oauth-client-secret',
        GENERIC_AUTH_URL: 'http://127.0.0.1:9/auth',
        GENERIC_TOKEN_URL: 'http://127.0.0.1:9/token',
        GENERIC_USER_URL: 'http://127.0.0.1:9/me',
        OAUTH_WHITELIST: '*@example.test',
        ...extra.env,
      },
      { logFile: join(dir, 'gateway.log') },
    );
    children.push(gateway);
    await waitForHttp(gateway, gatewayPort, `${HOSTS.auth}:${gatewayPort}`);
    await waitForHttp(flask, flaskPort, `127.0.0.1:${flaskPort}`);

    const layout = (port: number) => ({
      port,
      authHost: HOSTS.auth,
      gatewayPort,
      forwardAuthPort,
      apps: [
        { host: HOSTS.koa, upstreamPort: koa.port },
        { host: HOSTS.flask, upstreamPort: flaskPort },
      ],
    });
    children.push(await startNginx(join(dir, 'nginx'), layout(nginxPort)));
    children.push(await startCaddy(join(dir, 'caddy'), layout(caddyPort)));
    children.push(await startIngressShapedNginx(join(dir, 'ingress-nginx'), ingressPort, koa.port, forwardAuthPort));

    return {
      dir,
      gatewayPort,
      forwardAuthPort,
      proxies: { nginx: nginxPort, caddy: caddyPort, 'ingress-nginx': ingressPort },
      upstreams: { koa: koa.port, flask: flaskPort },
      async served(app, probe) {
        if (app === 'koa') return koa.served.filter((r) => r.probe === probe);
        const res = await fetch(`http://127.0.0.1:${flaskPort}/__served?probe=${encodeURIComponent(probe)}`);
        return (await res.json()) as Served[];
      },
      gatewayLog: () => readFileSync(join(dir, 'gateway.log'), 'utf8'),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** nginx wired like ingress-nginx's auth-url, in front of the Koa app only. */
async function startIngressShapedNginx(dir: string, port: number, upstreamPort: number, forwardAuthPort: number): Promise<Child> {
  mkdirSync(dir, { recursive: true });
  const server = fillTemplate(readFileSync(join(__dirname, 'ingress-nginx-shaped.conf.template'), 'utf8'), {
    APP_LISTEN: `127.0.0.1:${port}`,
    APP_HOST: HOSTS.koa,
    APP_UPSTREAM: `http://127.0.0.1:${upstreamPort}`,
    PORTCULLIS_FORWARD_AUTH_URL: `http://127.0.0.1:${forwardAuthPort}`,
  });
  writeFileSync(join(dir, 'server.conf'), server);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(dir, t)};`);
  const main = [
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    'events { worker_connections 64; }',
    'http {',
    `  access_log ${join(dir, 'access.log')};`,
    ...temp,
    `  include ${join(dir, 'server.conf')};`,
    '}',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'nginx.conf'), main);
  const child = startChild('ingress-nginx-shaped nginx', 'nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
    logFile: join(dir, 'stdout.log'),
  });
  await waitForHttp(child, port, HOSTS.koa);
  return child;
}

/**
 * Logs `username` in through the stack's nginx, as a client on the wire would: the session
 * cookie's `name=value` pair it was given. Throws when the login fails.
 */
export async function loginThroughNginx(stack: SecurityStack, username: keyof typeof PASSWORDS): Promise<string> {
  const body = JSON.stringify({ username, password: PASSWORDS[username] });
  const answer = await rawHttp(
    stack.proxies.nginx,
    requestHead(
      'POST',
      '/api/login',
      [
        ['Host', `${HOSTS.auth}:${stack.proxies.nginx}`],
        ['Content-Type', 'application/json'],
        ['Accept', 'application/json'],
        ['Content-Length', String(Buffer.byteLength(body))],
      ],
      body,
    ),
  );
  const cookie = answer.setCookies.find((c) => c.startsWith('portcullis-session='));
  if (answer.status !== 200 || cookie === undefined) throw new Error(`login of ${username} through nginx failed: ${answer.text}`);
  return cookie.split(';')[0];
}
