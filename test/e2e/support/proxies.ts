import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { startChild, waitForHttp, type Child } from '../../support/process';

export const EXAMPLES = join(__dirname, '..', '..', '..', 'examples');

/** Fills `${NAME}` like envsubst restricted to the given names, leaving nginx's own `$variables` alone. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\$\{([A-Z_]+)\}/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`template placeholder ${whole} has no value`);
    return value;
  });
}

/** One protected application behind the proxy. */
export interface ProtectedApp {
  /** Its host name. */
  readonly host: string;
  readonly upstreamPort: number;
}

/** What a proxy serves, all on one loopback port, as an operator would set it up from `examples/`. */
export interface ProxyLayout {
  /** Port the proxy listens on, on 127.0.0.1. */
  readonly port: number;
  /** Host of the gateway's APP_URL, routed to its public listener (UI and browser API only). */
  readonly authHost: string;
  /** The gateway's public listener (PORT). */
  readonly gatewayPort: number;
  /** The gateway's forward-auth listener (FORWARD_AUTH_PORT). */
  readonly forwardAuthPort: number;
  readonly apps: readonly ProtectedApp[];
  /**
   * HTTPS, as the examples ship: nginx with this certificate (one naming every host), Caddy with its
   * internal CA. `httpPort` is where plain HTTP is redirected from. Without it: plain HTTP on `port`.
   */
  readonly tls?: { readonly certificate: string; readonly key: string; readonly httpPort: number };
}

/** The top of an nginx.conf that runs in the foreground with every file under `dir`, up to inside `http {`. */
export function nginxMainHead(dir: string): string[] {
  return [
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    'events { worker_connections 256; }',
    'http {',
    `  access_log ${join(dir, 'access.log')};`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(dir, t)};`),
  ];
}

/**
 * The environment `examples/nginx/render.sh` is run with for `layout`: exactly the placeholders its
 * header documents, filled with loopback addresses (plain HTTP with `TLS=off` unless `layout.tls`).
 */
export function nginxRenderEnv(layout: ProxyLayout): Record<string, string> {
  const common = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    AUTH_HOST: layout.authHost,
    PORTCULLIS_UPSTREAM: `127.0.0.1:${layout.gatewayPort}`,
    PORTCULLIS_FORWARD_AUTH: `127.0.0.1:${layout.forwardAuthPort}`,
  };
  if (layout.tls === undefined) return { ...common, TLS: 'off', APP_LISTEN: `127.0.0.1:${layout.port}` };
  return {
    ...common,
    TLS_CERTIFICATE: layout.tls.certificate,
    TLS_CERTIFICATE_KEY: layout.tls.key,
    HTTPS_PORT: String(layout.port),
    APP_LISTEN: `127.0.0.1:${layout.port} ssl`,
    HTTP_LISTEN: `127.0.0.1:${layout.tls.httpPort}`,
  };
}

/**
 * Renders the shipped nginx templates into `out` with `examples/nginx/render.sh`, as an operator
 * does: once for the shared files and the first application, then `--app-only` per further one.
 */
export function renderNginx(out: string, layout: ProxyLayout): void {
  const script = join(EXAMPLES, 'nginx', 'render.sh');
  const env = nginxRenderEnv(layout);
  layout.apps.forEach((app, i) => {
    const args = i === 0 ? [script, out] : [script, '--app-only', out];
    execFileSync('sh', args, { env: { ...env, APP_HOST: app.host, APP_UPSTREAM: `http://127.0.0.1:${app.upstreamPort}` }, stdio: 'pipe' });
  });
}

/**
 * nginx as a foreground child with everything (pid, logs, temp files) under `dir`: a minimal main
 * config whose http context includes what `examples/nginx/render.sh` rendered (as conf.d/ is
 * included in a distribution's nginx.conf).
 */
export async function startNginx(dir: string, layout: ProxyLayout): Promise<Child> {
  mkdirSync(dir, { recursive: true });
  renderNginx(join(dir, 'conf.d'), layout);
  const main = [...nginxMainHead(dir), `  include ${join(dir, 'conf.d')}/*.conf;`, '}', ''].join('\n');
  const config = join(dir, 'nginx.conf');
  writeFileSync(config, main);
  const child = startChild('nginx', 'nginx', ['-p', dir, '-c', config, '-e', join(dir, 'error.log')], { logFile: join(dir, 'stdout.log') });
  const host = layout.apps[0]?.host ?? layout.authHost;
  await (layout.tls === undefined ? waitForHttp(child, layout.port, host) : waitForTls(child, layout.port, host));
  return child;
}

/** Resolves once `port` completes a TLS handshake for `servername` (any certificate), or fails when the child dies or time runs out. */
export async function waitForTls(child: Child, port: number, servername: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.process.exitCode !== null) throw new Error(`${child.name} exited with ${child.process.exitCode}; see ${child.logFile}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false, timeout: 1000 }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
      socket.on('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`${child.name} did not complete a TLS handshake on port ${port} in time; see ${child.logFile}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * caddy as a foreground child running `examples/caddy/Caddyfile`: the login site and the first
 * application come from its environment placeholders, the admin endpoint is off and its storage
 * lives under `dir`. A further application gets a site of its own that imports the file's
 * `portcullis_protected` snippet, as the file tells an operator to do.
 */
export async function startCaddy(dir: string, layout: ProxyLayout): Promise<Child> {
  mkdirSync(dir, { recursive: true });
  const [first, ...more] = layout.apps;
  const env = caddyEnv(dir, layout);
  const scheme = layout.tls === undefined ? 'http' : 'https';
  let config = join(EXAMPLES, 'caddy', 'Caddyfile');
  if (more.length > 0) {
    const sites = more.map((app) => `\n${scheme}://${app.host}:${layout.port} {\n\timport portcullis_protected 127.0.0.1:${app.upstreamPort}\n}\n`);
    const copy = join(dir, 'Caddyfile');
    writeFileSync(copy, readFileSync(config, 'utf8') + sites.join(''));
    config = copy;
  }
  const child = startChild('caddy', 'caddy', ['run', '--config', config, '--adapter', 'caddyfile'], {
    env,
    cwd: dir,
    logFile: join(dir, 'caddy.log'),
  });
  await (layout.tls === undefined ? waitForHttp(child, layout.port, first.host) : waitForTls(child, layout.port, first.host));
  return child;
}

/**
 * The environment `examples/caddy/Caddyfile` runs with for `layout`: the placeholders its header
 * documents, the admin endpoint off and Caddy's storage (its internal CA too) under `dir`.
 * With `layout.tls`: https:// sites on `port` with certificates from Caddy's internal CA (the
 * example's default), plain HTTP redirected from `tls.httpPort`, and this machine's trust store
 * left alone. Without: explicit http:// addresses, where Caddy serves plain HTTP only.
 */
export function caddyEnv(dir: string, layout: ProxyLayout): Record<string, string> {
  const first = layout.apps[0];
  const scheme = layout.tls === undefined ? 'http' : 'https';
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_DATA_HOME: join(dir, 'data'),
    CADDY_ADMIN: 'off',
    CADDY_BIND: '127.0.0.1',
    AUTH_ADDRESS: `${scheme}://${layout.authHost}:${layout.port}`,
    PORTCULLIS_UPSTREAM: `127.0.0.1:${layout.gatewayPort}`,
    PORTCULLIS_FORWARD_AUTH: `127.0.0.1:${layout.forwardAuthPort}`,
    APP_ADDRESS: `${scheme}://${first.host}:${layout.port}`,
    APP_UPSTREAM: `127.0.0.1:${first.upstreamPort}`,
    ...(layout.tls === undefined
      ? { CATCH_ALL_ADDRESS: `http://:${layout.port}` }
      : {
          CATCH_ALL_ADDRESS: `https://:${layout.port}`,
          CADDY_HTTP_PORT: String(layout.tls.httpPort),
          CADDY_GLOBAL_OPTIONS: 'skip_install_trust',
        }),
  };
}
