import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { TEST_SECRET, usersEntry } from '../../support/credentials';
import { freePort } from '../../support/net';
import { selfSignedCertificate } from '../../support/tls';
import { runCli, startChild, startGatewayProcess, waitForHttp, type Child } from '../../support/process';
import { nginxMainHead, startCaddy, startNginx } from './proxies';

/**
 * The classic wiring mistakes, each one switch away from the correct configuration:
 * - clientForwarded: the client's X-Forwarded-* / X-Original-URL go on (nginx: the auth location
 *   sets only X-Original-URL, as the old README snippet did, and the app location clears nothing;
 *   Caddy: `trusted_proxies` covering the clients);
 * - noDefaultHost: nginx with `$http_host` and no default server; Caddy with a host-less site;
 * - publicAuthApi: the login host routes /api/auth/* to Portcullis;
 * - clientRemote: client Remote-* headers reach the app (nginx overwrites only Remote-User;
 *   Caddy drops none);
 * - pathsByHand: the login host lists the paths it passes (login, TOTP, logout and the pages, as the
 *   old examples did), so the account, passkey and OpenID Connect paths get the proxy's own 404;
 * - publicPrefix: the proxy itself exempts /public/ from forward auth, so `/public/..;/` reaches an
 *   app that may read it as `/`.
 */
export interface Mistakes {
  readonly clientForwarded?: boolean;
  readonly noDefaultHost?: boolean;
  readonly publicAuthApi?: boolean;
  readonly clientRemote?: boolean;
  readonly publicPrefix?: boolean;
  readonly pathsByHand?: boolean;
  /** The app receives the client's access token (Portcullis-Token and `Authorization: Bearer pct_…`). */
  readonly clientToken?: boolean;
}

export type ProxyKind = 'nginx' | 'caddy';

export interface Lab {
  /** `https://app.example.test:<port>/`: the protected app behind the proxy. */
  readonly appUrl: string;
  readonly username: string;
  readonly password: string;
  /** (Re)starts the proxy on the lab's port with the given wiring. */
  useProxy(kind: ProxyKind, mistakes?: Mistakes): Promise<void>;
  stop(): Promise<void>;
}

export interface DoctorRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** check name → verdicts seen for it (PASS, WARN, FAIL, SKIP). */
  readonly verdicts: ReadonlyMap<string, readonly string[]>;
}

/** An upstream that answers every request with the request's headers as JSON: a spoofed value that reaches it shows. */
async function startHeaderEcho(): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Ports {
  readonly proxy: number;
  readonly gateway: number;
  readonly upstream: number;
}

function nginxConfig(dir: string, ports: Ports, tls: { cert: string; key: string }, m: Mistakes): string {
  const listen = (extra = ''): string => `listen 127.0.0.1:${ports.proxy} ssl${extra}; ssl_certificate ${tls.cert}; ssl_certificate_key ${tls.key};`;
  // $host has no port; the lab's port is not 443, so it is added back for the URLs Portcullis builds.
  const host = m.noDefaultHost ? '$http_host' : '$host:$server_port';
  const upstreamHost = m.noDefaultHost ? '$http_host' : '$host';
  const app = `
server {
    ${listen()}
    server_name app.example.test;
${m.publicPrefix ? `    location /public/ { proxy_pass http://127.0.0.1:${ports.upstream}; }` : ''}
    location / {
        auth_request /portcullis-auth;
        auth_request_set $portcullis_location $upstream_http_x_portcullis_location;
        error_page 401 = @portcullis_login;
        error_page 403 = @portcullis_denied;
        auth_request_set $portcullis_user $upstream_http_remote_user;
        auth_request_set $portcullis_name $upstream_http_remote_name;
        auth_request_set $portcullis_email $upstream_http_remote_email;
        auth_request_set $portcullis_groups $upstream_http_remote_groups;
        proxy_set_header Remote-User $portcullis_user;
${
  m.clientRemote
    ? ''
    : `        proxy_set_header Remote-Name $portcullis_name;
        proxy_set_header Remote-Email $portcullis_email;
        proxy_set_header Remote-Groups $portcullis_groups;`
}
        proxy_set_header Host ${upstreamHost};
        proxy_set_header X-Forwarded-For $remote_addr;
${m.clientToken ? '' : '        proxy_set_header Portcullis-Token "";\n        proxy_set_header Authorization $portcullis_client_authorization;'}
${
  m.clientForwarded
    ? ''
    : `        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_set_header X-Forwarded-Host ${host};
        proxy_set_header X-Forwarded-Uri "";
        proxy_set_header X-Original-URL "";`
}
        proxy_pass http://127.0.0.1:${ports.upstream};
    }
    location = /portcullis-auth {
        internal;
        proxy_pass http://127.0.0.1:${ports.gateway}/api/auth/nginx;
        proxy_pass_request_body off;
        proxy_set_header Content-Length "";
        proxy_set_header X-Original-URL $scheme://${host}$request_uri;
${
  m.clientForwarded
    ? ''
    : `        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_set_header X-Forwarded-Host ${host};
        proxy_set_header X-Forwarded-Uri $request_uri;`
}
        proxy_set_header X-Forwarded-For $remote_addr;
    }
    location @portcullis_login {
        if ($portcullis_browser) { return 302 $portcullis_location; }
        default_type application/json;
        return 401 '{"status":401,"code":"unauthorized","message":"Unauthorized"}';
    }
    location @portcullis_denied {
        if ($portcullis_browser) { return 302 $portcullis_location; }
        default_type application/json;
        return 403 '{"status":403,"code":"forbidden","message":"Forbidden"}';
    }
}`;
  const login = `
server {
    ${listen()}
    server_name auth.example.test;
${m.publicAuthApi ? '' : '    location /api/auth/ { return 404; }'}
${m.pathsByHand ? '    location ~ ^/(account|enrol|oidc/|\\.well-known/|api/(account|passkeys|handoff)) { return 404; }' : ''}
    location / {
        proxy_pass http://127.0.0.1:${ports.gateway};
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $remote_addr;
        proxy_set_header X-Forwarded-Proto $scheme;
    }
}`;
  const fallback = `
server {
    ${listen(' default_server')}
    server_name _;
    return 444;
}`;
  return [
    ...nginxMainHead(dir),
    '  map "$http_authorization|$http_portcullis_token|$http_accept" $portcullis_browser { default 0; "~^\\|\\|.*text/html" 1; }',
    '  map $http_authorization $portcullis_client_authorization { default $http_authorization; "~*^basic\\s" ""; "~*^bearer\\s+pct_" ""; }',
    // Without a default server the first one answers every unknown host: here, the app.
    m.noDefaultHost ? app + login : fallback + app + login,
    '}',
    '',
  ].join('\n');
}

function caddyfile(ports: Ports, tls: { cert: string; key: string }, m: Mistakes): string {
  const tlsLine = `tls ${tls.cert} ${tls.key}`;
  const trusted = m.clientForwarded ? 'trusted_proxies 127.0.0.0/8' : '';
  return `{
	admin off
	default_bind 127.0.0.1
	auto_https disable_redirects
	skip_install_trust
}

https://auth.example.test:${ports.proxy} {
	${tlsLine}
${m.publicAuthApi ? '' : '	handle /api/auth/* {\n		respond 404\n	}'}
${m.pathsByHand ? '	@byHand path_regexp ^/(account|enrol|oidc/|\\.well-known/|api/(account|passkeys|handoff))\n	handle @byHand {\n		respond 404\n	}' : ''}
	handle {
		reverse_proxy 127.0.0.1:${ports.gateway}
	}
}

${m.noDefaultHost ? `https://:${ports.proxy}` : `https://app.example.test:${ports.proxy}`} {
	${tlsLine}
${m.publicPrefix ? `	handle /public/* {\n		reverse_proxy 127.0.0.1:${ports.upstream}\n	}` : ''}
	route {
${m.clientRemote ? '' : '		request_header -Remote-User\n		request_header -Remote-Name\n		request_header -Remote-Email\n		request_header -Remote-Groups'}
${m.clientForwarded ? '' : '		request_header -X-Original-URL\n		request_header -X-Forwarded-Uri'}
		reverse_proxy 127.0.0.1:${ports.gateway} {
			${trusted}
			method GET
			rewrite /api/auth/caddy
			header_up X-Forwarded-Method {method}
			header_up X-Forwarded-Uri {uri}
			@authenticated status 2xx
			handle_response @authenticated {
				@user not vars {rp.header.Remote-User} "" "<nil>"
				request_header @user Remote-User {rp.header.Remote-User}
				@name not vars {rp.header.Remote-Name} "" "<nil>"
				request_header @name Remote-Name {rp.header.Remote-Name}
				@email not vars {rp.header.Remote-Email} "" "<nil>"
				request_header @email Remote-Email {rp.header.Remote-Email}
				@groups not vars {rp.header.Remote-Groups} "" "<nil>"
				request_header @groups Remote-Groups {rp.header.Remote-Groups}
${m.clientToken ? '' : '				request_header -Portcullis-Token\n				@access_token header_regexp Authorization "^(?i)bearer\\s+pct_"\n				request_header @access_token -Authorization'}
			}
		}
		reverse_proxy 127.0.0.1:${ports.upstream} {
			${trusted}
		}
	}
}
${
  m.noDefaultHost
    ? ''
    : `
https://:${ports.proxy} {
	${tlsLine}
	abort
}`
}
`;
}

/**
 * The doctor's lab: the built gateway (APP_URL on the proxy's login host), an upstream that echoes
 * headers, and nginx or Caddy terminating TLS for `auth.example.test` and `app.example.test` on one
 * loopback port, all in a throwaway directory. The proxy is restarted for every wiring.
 */
export async function startLab(options: { gatewayEnv?: Record<string, string> } = {}): Promise<Lab> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-doctor-'));
  const { certificate, key } = selfSignedCertificate(dir, ['example.test', '*.example.test']);
  const tls = { cert: certificate, key };
  const upstream = await startHeaderEcho();
  const ports: Ports = { proxy: await freePort(), gateway: await freePort(), upstream: upstream.port };
  const username = 'alice';
  const password = 'alice-Pa55word!';
  const gateway = startGatewayProcess(
    {
      PORT: String(ports.gateway),
      APP_URL: `https://auth.example.test:${ports.proxy}`,
      SECRET: TEST_SECRET,
      USERS: usersEntry(username, password),
      LOG_LEVEL: 'warn',
      ...options.gatewayEnv,
    },
    { logFile: join(dir, 'gateway.log') },
  );
  let proxy: Child | null = null;
  let generation = 0;
  const stopProxy = async (): Promise<void> => {
    if (proxy !== null) await proxy.stop();
    proxy = null;
  };
  try {
    await waitForHttp(gateway, ports.gateway, `auth.example.test:${ports.proxy}`);
  } catch (e) {
    await gateway.stop();
    await upstream.close();
    throw e;
  }
  return {
    appUrl: `https://app.example.test:${ports.proxy}/`,
    username,
    password,
    async useProxy(kind, mistakes = {}) {
      await stopProxy();
      generation += 1;
      const where = join(dir, `${kind}-${generation}`);
      mkdirSync(where, { recursive: true });
      if (kind === 'nginx') {
        const config = join(where, 'nginx.conf');
        writeFileSync(config, nginxConfig(where, ports, tls, mistakes));
        proxy = startChild('nginx', 'nginx', ['-p', where, '-c', config, '-e', join(where, 'error.log')], { logFile: join(where, 'stdout.log') });
      } else {
        const config = join(where, 'Caddyfile');
        writeFileSync(config, caddyfile(ports, tls, mistakes));
        proxy = startChild('caddy', 'caddy', ['run', '--config', config, '--adapter', 'caddyfile'], {
          env: { PATH: process.env.PATH, HOME: where, XDG_CONFIG_HOME: join(where, 'config'), XDG_DATA_HOME: join(where, 'data') },
          cwd: where,
          logFile: join(where, 'caddy.log'),
        });
      }
      await waitForTls(proxy, ports.proxy);
    },
    async stop() {
      await stopProxy();
      await gateway.stop();
      await upstream.close();
      if (process.env.E2E_KEEP_DIR === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The shipped `examples/` as an operator would run them: the built gateway with forward auth on its
 * own listener and an access rule that makes `/public/` public, nginx or Caddy from the example
 * files (plain http on a loopback port, as the end-to-end tests fill them) in front of it and of the
 * header-echoing upstream, the login host routed through the proxy.
 */
export async function startExamples(kind: ProxyKind): Promise<{ appUrl: string; username: string; password: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-doctor-examples-'));
  const upstream = await startHeaderEcho();
  const port = await freePort();
  const gatewayPort = await freePort();
  const forwardAuthPort = await freePort();
  const username = 'alice';
  const password = 'alice-Pa55word!';
  const rules = join(dir, 'rules.yml');
  writeFileSync(rules, 'apps:\n  app:\n    domain: app.example.test\n    path: { allow: ["^/public/"] }\n');
  const children: Child[] = [];
  const stop = async (): Promise<void> => {
    for (const child of children.reverse()) await child.stop();
    await upstream.close();
    if (process.env.E2E_KEEP_DIR === undefined) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const gateway = startGatewayProcess(
      {
        PORT: String(gatewayPort),
        FORWARD_AUTH_PORT: String(forwardAuthPort),
        APP_URL: `http://auth.example.test:${port}`,
        SECRET: TEST_SECRET,
        USERS: usersEntry(username, password),
        ACCESS_CONFIG: rules,
        LOG_LEVEL: 'warn',
      },
      { logFile: join(dir, 'gateway.log') },
    );
    children.push(gateway);
    await waitForHttp(gateway, gatewayPort, `auth.example.test:${port}`);
    const layout = { port, authHost: 'auth.example.test', gatewayPort, forwardAuthPort, apps: [{ host: 'app.example.test', upstreamPort: upstream.port }] };
    children.push(kind === 'nginx' ? await startNginx(join(dir, 'nginx'), layout) : await startCaddy(join(dir, 'caddy'), layout));
  } catch (e) {
    await stop();
    throw e;
  }
  return { appUrl: `http://app.example.test:${port}/`, username, password, stop };
}

/** Resolves once the port accepts TLS connections, or fails when the child dies or time runs out. */
async function waitForTls(child: Child, port: number, timeoutMs = 20000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.process.exitCode !== null) throw new Error(`${child.name} exited with ${child.process.exitCode}; see ${child.logFile}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, servername: 'app.example.test', rejectUnauthorized: false }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`${child.name} did not accept TLS on port ${port} in time; see ${child.logFile}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs the built `portcullis doctor` as its own process, `input` on its stdin (the password). */
export async function runDoctor(args: readonly string[], input = ''): Promise<DoctorRun> {
  const { code, stdout, stderr } = await runCli(['doctor', ...args], { input });
  const verdicts = new Map<string, string[]>();
  for (const m of stdout.matchAll(/^(PASS|WARN|FAIL|SKIP)\s+([a-z0-9-]+):/gm)) verdicts.set(m[2], [...(verdicts.get(m[2]) ?? []), m[1]]);
  return { code, stdout, stderr, verdicts };
}
