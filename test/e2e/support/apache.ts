import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startChild, waitForHttp, type Child } from '../../support/process';

/**
 * A real OpenID Connect relying party from Debian's packages: Apache 2 with mod_auth_openidc
 * (libapache2-mod-auth-openidc; scripts/apache-setup.sh installs both). Each run renders its own
 * configuration under a throwaway directory and runs `apache2 -f <conf> -DFOREGROUND` as a child
 * process on a loopback port: the package's service and /etc/apache2 are never used.
 */

export const APACHE_BIN = process.env.APACHE_BIN ?? '/usr/sbin/apache2';
export const APACHE_MODULES = process.env.APACHE_MODULES ?? '/usr/lib/apache2/modules';

/** One protected site: its own host name (a name-based virtual host) and its own client at the provider. */
export interface RelyingPartySite {
  /** Host name the browser uses (`rp1.example.test`); Chromium maps `*.example.test` to 127.0.0.1. */
  readonly host: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface RelyingPartyOptions {
  /** The provider's issuer; discovery is read from `<issuer>/.well-known/openid-configuration`. */
  readonly issuer: string;
  readonly port: number;
  readonly sites: readonly RelyingPartySite[];
  /** Scopes asked for (default `openid email profile groups`). */
  readonly scope?: string;
  /**
   * `host:port` of an HTTP proxy for mod_auth_openidc's own requests (discovery, token, userinfo,
   * JWKS): the provider's `*.example.test` names resolve only in Chromium (host-resolver rules), so
   * the tests send Apache's back-channel through {@link startLoopbackProxy}.
   */
  readonly outgoingProxy?: string;
}

export interface RelyingParty {
  readonly child: Child;
  readonly port: number;
  /** `http://<host>:<port>/protected/` per site host: the page mod_auth_openidc guards. */
  readonly protectedUrl: (host: string) => string;
  /** The redirect URI each site registers at the provider (`http://<host>:<port>/protected/redirect_uri`). */
  readonly redirectUri: (host: string) => string;
  readonly dir: string;
  stop(): Promise<void>;
}

/** The redirect URI of a site: a path inside the protected location that serves no content (mod_auth_openidc's own handler). */
export function relyingPartyRedirectUri(host: string, port: number): string {
  return `http://${host}:${port}/protected/redirect_uri`;
}

/** Modules the rendered configuration needs, besides mod_auth_openidc itself. */
const MODULES: readonly (readonly [string, string])[] = [
  ['mpm_event_module', 'mod_mpm_event.so'],
  ['authn_core_module', 'mod_authn_core.so'],
  ['authz_core_module', 'mod_authz_core.so'],
  ['authz_user_module', 'mod_authz_user.so'],
  ['mime_module', 'mod_mime.so'],
  ['dir_module', 'mod_dir.so'],
  // Server-side includes, so the protected page shows what the relying party learnt (REMOTE_USER, claims).
  ['include_module', 'mod_include.so'],
  ['auth_openidc_module', 'mod_auth_openidc.so'],
];

/** Whether Apache and mod_auth_openidc are installed (scripts/apache-setup.sh). */
export function apacheAvailable(): boolean {
  return existsSync(APACHE_BIN) && existsSync(join(APACHE_MODULES, 'mod_auth_openidc.so'));
}

/** The protected page: the identity as mod_auth_openidc sets it in the request's environment. */
const PAGE = [
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Apache relying party</title></head><body>',
  '<h1>Apache relying party</h1>',
  '<dl>',
  '<dt>host</dt><dd id="host"><!--#echo var="SERVER_NAME" --></dd>',
  '<dt>user</dt><dd id="remote-user"><!--#echo var="REMOTE_USER" --></dd>',
  '<dt>sub</dt><dd id="sub"><!--#echo var="OIDC_CLAIM_sub" --></dd>',
  '<dt>email</dt><dd id="email"><!--#echo var="OIDC_CLAIM_email" --></dd>',
  '<dt>groups</dt><dd id="groups"><!--#echo var="OIDC_CLAIM_groups" --></dd>',
  '</dl></body></html>',
  '',
].join('\n');

/** The apache2.conf for `options`, every file under `dir`. */
export function renderApacheConfig(dir: string, options: RelyingPartyOptions, runAs: string | null): string {
  const scope = options.scope ?? 'openid email profile groups';
  const lines = [
    `ServerRoot ${dir}`,
    `DefaultRuntimeDir ${dir}/run`,
    `PidFile ${dir}/run/apache2.pid`,
    `ScoreBoardFile ${dir}/run/scoreboard`,
    `Mutex file:${dir}/run default`,
    `Listen 127.0.0.1:${options.port}`,
    ...MODULES.map(([name, file]) => `LoadModule ${name} ${join(APACHE_MODULES, file)}`),
    ...(runAs === null ? [] : [`User ${runAs}`, `Group ${runAs}`]),
    'ServerName localhost',
    `ErrorLog ${dir}/error.log`,
    'LogLevel warn auth_openidc:info',
    // Few workers: the machine is shared and one browser is the only client.
    'StartServers 1',
    'ServerLimit 1',
    'ThreadsPerChild 16',
    'MaxRequestWorkers 16',
    'MinSpareThreads 1',
    'MaxSpareThreads 16',
    'TypesConfig /dev/null',
    // No .htaccess lookups up the temp directory's parents.
    '<Directory />',
    '  AllowOverride None',
    '  Require all denied',
    '</Directory>',
    'AddType text/html .shtml',
    'DirectoryIndex index.shtml',
    `DocumentRoot ${dir}/htdocs`,
    `<Directory ${dir}/htdocs>`,
    '  Options +Includes',
    '  AddOutputFilter INCLUDES .shtml',
    '  Require all granted',
    '</Directory>',
  ];
  for (const site of options.sites) {
    lines.push(
      `<VirtualHost 127.0.0.1:${options.port}>`,
      `  ServerName ${site.host}`,
      `  DocumentRoot ${dir}/htdocs`,
      `  OIDCProviderMetadataURL ${options.issuer}/.well-known/openid-configuration`,
      `  OIDCClientID ${site.clientId}`,
      `  OIDCClientSecret ${site.clientSecret}`,
      `  OIDCRedirectURI ${relyingPartyRedirectUri(site.host, options.port)}`,
      // Encrypts its session and state cookies; any random value per run (required, no default).
      `  OIDCCryptoPassphrase ${randomBytes(24).toString('hex')}`,
      `  OIDCScope "${scope}"`,
      ...(options.outgoingProxy === undefined ? [] : [`  OIDCOutgoingProxy ${options.outgoingProxy}`]),
      // Code flow with PKCE S256, as the provider requires of every client.
      '  OIDCResponseType code',
      '  OIDCPKCEMethod S256',
      // REMOTE_USER = the stable subject, never the e-mail (which can change).
      '  OIDCRemoteUserClaim sub',
      // Arrays (groups) as one comma-separated value.
      '  OIDCClaimDelimiter ,',
      // Plain http on loopback: the session cookie cannot be Secure here.
      '  OIDCCookieSameSite On',
      `  <Location /protected/>`,
      '    AuthType openid-connect',
      '    Require valid-user',
      '  </Location>',
      '</VirtualHost>',
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Starts Apache with mod_auth_openidc protecting `/protected/` on every site of `options`, once
 * the provider's discovery document is served. Resolves once Apache answers on its port.
 */
export async function startApacheRelyingParty(dir: string, options: RelyingPartyOptions): Promise<RelyingParty> {
  mkdirSync(join(dir, 'run'), { recursive: true });
  mkdirSync(join(dir, 'htdocs', 'protected'), { recursive: true });
  writeFileSync(join(dir, 'htdocs', 'protected', 'index.shtml'), PAGE);
  // As root, Apache's workers run as www-data: they must reach the documents and the run directory.
  const runAs = process.getuid?.() === 0 ? 'www-data' : null;
  // (mkdtemp makes the parent 0700: it becomes traversable, not listable.)
  if (runAs !== null) {
    chmodSync(dirname(dir), 0o711);
    for (const d of [dir, join(dir, 'run'), join(dir, 'htdocs'), join(dir, 'htdocs', 'protected')]) chmodSync(d, 0o755);
  }
  const config = join(dir, 'apache2.conf');
  writeFileSync(config, renderApacheConfig(dir, options, runAs), { mode: 0o600 });
  const child = startChild('apache2', APACHE_BIN, ['-f', config, '-DFOREGROUND'], { logFile: join(dir, 'stdout.log') });
  await waitForHttp(child, options.port, options.sites[0]?.host ?? 'localhost');
  return {
    child,
    port: options.port,
    dir,
    protectedUrl: (host) => `http://${host}:${options.port}/protected/`,
    redirectUri: (host) => relyingPartyRedirectUri(host, options.port),
    stop: () => child.stop(),
  };
}

/**
 * A plain HTTP forward proxy that sends every request to 127.0.0.1 on the port of its absolute
 * URL, keeping the Host header: the back-channel of mod_auth_openidc reaches the gateway by its
 * `auth.example.test` issuer without touching /etc/hosts.
 */
export async function startLoopbackProxy(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: Number(target.port || 80),
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
