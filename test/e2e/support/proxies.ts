import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startChild, waitForHttp, type Child } from './processes';

const EXAMPLES = join(__dirname, '..', '..', '..', 'examples');

/** Fills `${NAME}` like envsubst restricted to the given names, leaving nginx's own `$variables` alone. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\$\{([A-Z_]+)\}/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`template placeholder ${whole} has no value`);
    return value;
  });
}

export interface ProxySite {
  /** Port the proxy listens on, on 127.0.0.1. */
  readonly port: number;
  /** Host name of the protected application behind this proxy. */
  readonly host: string;
  readonly gatewayPort: number;
  readonly upstreamPort: number;
}

/**
 * nginx as a foreground child with everything (pid, logs, temp files) under `dir`: a minimal main
 * config that includes `examples/nginx/portcullis.conf.template`, filled in.
 */
export async function startNginx(dir: string, site: ProxySite): Promise<Child> {
  mkdirSync(dir, { recursive: true });
  const server = fillTemplate(readFileSync(join(EXAMPLES, 'nginx', 'portcullis.conf.template'), 'utf8'), {
    APP_LISTEN: `127.0.0.1:${site.port}`,
    APP_HOST: site.host,
    APP_UPSTREAM: `http://127.0.0.1:${site.upstreamPort}`,
    PORTCULLIS_URL: `http://127.0.0.1:${site.gatewayPort}`,
  });
  writeFileSync(join(dir, 'portcullis.conf'), server);
  const main = [
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    'events { worker_connections 256; }',
    'http {',
    `  access_log ${join(dir, 'access.log')};`,
    `  client_body_temp_path ${join(dir, 'client_body')};`,
    `  proxy_temp_path ${join(dir, 'proxy')};`,
    `  fastcgi_temp_path ${join(dir, 'fastcgi')};`,
    `  uwsgi_temp_path ${join(dir, 'uwsgi')};`,
    `  scgi_temp_path ${join(dir, 'scgi')};`,
    `  include ${join(dir, 'portcullis.conf')};`,
    '}',
    '',
  ].join('\n');
  const config = join(dir, 'nginx.conf');
  writeFileSync(config, main);
  const child = startChild('nginx', 'nginx', ['-p', dir, '-c', config, '-e', join(dir, 'error.log')], { logFile: join(dir, 'stdout.log') });
  await waitForHttp(child, site.port, site.host);
  return child;
}

/**
 * caddy as a foreground child running `examples/caddy/Caddyfile` unchanged: the site comes from
 * its environment placeholders, the admin endpoint is off and its storage lives under `dir`.
 */
export async function startCaddy(dir: string, site: ProxySite): Promise<Child> {
  mkdirSync(dir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_DATA_HOME: join(dir, 'data'),
    CADDY_ADMIN: 'off',
    CADDY_BIND: '127.0.0.1',
    // An explicit http:// address: Caddy serves plain HTTP there and does no automatic HTTPS.
    APP_ADDRESS: `http://${site.host}:${site.port}`,
    APP_UPSTREAM: `127.0.0.1:${site.upstreamPort}`,
    PORTCULLIS_UPSTREAM: `127.0.0.1:${site.gatewayPort}`,
  };
  const child = startChild('caddy', 'caddy', ['run', '--config', join(EXAMPLES, 'caddy', 'Caddyfile'), '--adapter', 'caddyfile'], {
    env,
    cwd: dir,
    logFile: join(dir, 'caddy.log'),
  });
  await waitForHttp(child, site.port, site.host);
  return child;
}
