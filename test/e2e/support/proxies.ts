import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startChild, waitForHttp, type Child } from '../../support/process';

const EXAMPLES = join(__dirname, '..', '..', '..', 'examples');

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
}

/**
 * nginx as a foreground child with everything (pid, logs, temp files) under `dir`: a minimal main
 * config that includes the shipped templates filled in as envsubst would: `default.conf.template`
 * and `auth.conf.template` once, `portcullis.conf.template` once per application.
 */
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

export async function startNginx(dir: string, layout: ProxyLayout): Promise<Child> {
  mkdirSync(dir, { recursive: true });
  const template = (name: string): string => readFileSync(join(EXAMPLES, 'nginx', name), 'utf8');
  const common = {
    APP_LISTEN: `127.0.0.1:${layout.port}`,
    AUTH_HOST: layout.authHost,
    PORTCULLIS_URL: `http://127.0.0.1:${layout.gatewayPort}`,
    PORTCULLIS_FORWARD_AUTH_URL: `http://127.0.0.1:${layout.forwardAuthPort}`,
  };
  const includes: string[] = [];
  const render = (name: string, file: string, values: Record<string, string>): void => {
    writeFileSync(join(dir, file), fillTemplate(template(name), values));
    includes.push(`  include ${join(dir, file)};`);
  };
  render('default.conf.template', 'default.conf', common);
  render('auth.conf.template', 'auth.conf', common);
  layout.apps.forEach((app, i) =>
    render('portcullis.conf.template', `app-${i}.conf`, { ...common, APP_HOST: app.host, APP_UPSTREAM: `http://127.0.0.1:${app.upstreamPort}` }),
  );
  const main = [...nginxMainHead(dir), ...includes, '}', ''].join('\n');
  const config = join(dir, 'nginx.conf');
  writeFileSync(config, main);
  const child = startChild('nginx', 'nginx', ['-p', dir, '-c', config, '-e', join(dir, 'error.log')], { logFile: join(dir, 'stdout.log') });
  await waitForHttp(child, layout.port, layout.apps[0]?.host ?? layout.authHost);
  return child;
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
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_DATA_HOME: join(dir, 'data'),
    CADDY_ADMIN: 'off',
    CADDY_BIND: '127.0.0.1',
    // Explicit http:// addresses: Caddy serves plain HTTP there and does no automatic HTTPS.
    AUTH_ADDRESS: `http://${layout.authHost}:${layout.port}`,
    PORTCULLIS_UPSTREAM: `127.0.0.1:${layout.gatewayPort}`,
    PORTCULLIS_FORWARD_AUTH: `127.0.0.1:${layout.forwardAuthPort}`,
    APP_ADDRESS: `http://${first.host}:${layout.port}`,
    APP_UPSTREAM: `127.0.0.1:${first.upstreamPort}`,
    CATCH_ALL_ADDRESS: `http://:${layout.port}`,
  };
  let config = join(EXAMPLES, 'caddy', 'Caddyfile');
  if (more.length > 0) {
    const sites = more.map((app) => `\nhttp://${app.host}:${layout.port} {\n\timport portcullis_protected 127.0.0.1:${app.upstreamPort}\n}\n`);
    const copy = join(dir, 'Caddyfile');
    writeFileSync(copy, readFileSync(config, 'utf8') + sites.join(''));
    config = copy;
  }
  const child = startChild('caddy', 'caddy', ['run', '--config', config, '--adapter', 'caddyfile'], {
    env,
    cwd: dir,
    logFile: join(dir, 'caddy.log'),
  });
  await waitForHttp(child, layout.port, first.host);
  return child;
}
