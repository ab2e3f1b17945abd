'use strict';
// Real nginx and caddy for the proxy scenarios, configured from the SHIPPED examples/ files the way
// an operator renders them and the end-to-end and security suites do (test/e2e/support/proxies.ts):
// nginx's templates with only their own ${NAME} placeholders filled (a restricted envsubst, nginx's
// $variables untouched), caddy's Caddyfile run unchanged with its {$NAME} placeholders in the
// environment. Everything (pid, logs, temp files, caddy's storage) lives under one temp directory.
//
// When examples/nginx/render.sh exists it renders them, exactly as its header tells an operator
// (TLS=off: plain HTTP on a loopback port, so the numbers are about the auth hop, not TLS).
//
// Derived variants, all made here from the shipped text at run time (never a copy of it), each
// edit checked to apply exactly once so a changed template fails loudly instead of measuring
// something else:
// - `unprotected`: the shipped nginx server with `auth_request off;` (same server, same headers,
//   same app proxying, no auth hop): the reference of ratio (a).
// - `plain`: not derived from the examples: the plainest keep-alive proxy to the same app (see
//   plainKeepAliveProxy), the reference for what the shipped configuration costs as a proxy.
// - `efficient`: MEASUREMENT VARIANT, not a shipped example, while the shipped template lacks it:
//   issue 20's shape for the auth subrequest (upstream keepalive pool, HTTP/1.1, empty Connection,
//   `proxy_method HEAD`; the original method already travels in X-Original-Method).
// - `previous`: MEASUREMENT VARIANT, once the shipped template has that shape: the shipped
//   template with the auth subrequest as it was before issue 20 (GET, straight to the listener,
//   no pool), so before and after stay in one run. For caddy: the shipped Caddyfile without its
//   `Prefer: return=minimal` request header (see startCaddy).
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `text` with `pattern` replaced, which must match exactly once. */
function editOnce(text, pattern, replacement, what) {
  const hits = text.match(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`));
  if (hits === null || hits.length !== 1)
    throw new Error(`bench proxy variant "${what}": expected one match of ${pattern} in the shipped template, found ${hits === null ? 0 : hits.length}`);
  return text.replace(pattern, replacement);
}

const RENDER_SCRIPT = path.join(EXAMPLES, 'nginx', 'render.sh');

/** A rendered protected-app server (render.sh's output) changed into one of the variants above. */
function variantOfRendered(text, variant, forwardAuthHostPort) {
  let t = text;
  if (variant === 'unprotected') t = editOnce(t, /^(\s*)auth_request\s+\/portcullis-auth\s*;/m, '$1auth_request off;', variant);
  if (variant === 'previous') {
    // Only the auth location: the application's location has its own HTTP/1.1 pool.
    const at = t.indexOf('location = /portcullis-auth');
    if (at < 0) throw new Error('bench proxy variant "previous": no auth location in the shipped template');
    return t.slice(0, at) + variantOfRendered(t.slice(at), 'previous-auth-location', forwardAuthHostPort);
  }
  if (variant === 'previous-auth-location') {
    const what = 'previous';
    t = editOnce(t, /^\s*proxy_method\s+HEAD\s*;\n/m, '', what);
    t = editOnce(t, /^\s*proxy_http_version\s+1\.1\s*;\n/m, '', what);
    t = editOnce(t, /^\s*proxy_set_header\s+Connection\s+""\s*;\n/m, '', what);
    t = editOnce(t, /proxy_pass\s+http:\/\/portcullis_forward_auth(\/api\/auth\/nginx)\s*;/, `proxy_pass http://${forwardAuthHostPort}$1;`, what);
  }
  return t;
}

/** The shipped files rendered by examples/nginx/render.sh into `out`: [file name, text] pairs. */
function renderWithScript(out, { port, appHost, appPort, authHost, gatewayPort, forwardAuthHostPort, variant }) {
  const env = {
    PATH: process.env.PATH,
    TLS: 'off',
    APP_LISTEN: `127.0.0.1:${port}`,
    AUTH_HOST: authHost,
    PORTCULLIS_UPSTREAM: `127.0.0.1:${gatewayPort}`,
    PORTCULLIS_FORWARD_AUTH: forwardAuthHostPort,
    APP_HOST: appHost,
    APP_UPSTREAM: `127.0.0.1:${appPort}`,
  };
  execFileSync('sh', [RENDER_SCRIPT, out], { env, stdio: 'pipe' });
  return fs
    .readdirSync(out)
    .filter((f) => f.endsWith('.conf'))
    .sort()
    .map((f) => {
      const text = fs.readFileSync(path.join(out, f), 'utf8');
      return [f, f === `portcullis-app-${appHost}.conf` && variant !== 'shipped' ? variantOfRendered(text, variant, forwardAuthHostPort) : text];
    });
}

/**
 * The reference for the shipped configuration's cost: the plainest nginx proxy that keeps its
 * connections to the same app alive (an upstream pool, HTTP/1.1, empty Connection), with none of
 * the shipped header rewriting and no auth hop.
 */
function plainKeepAliveProxy(port, appHost, appPort) {
  return [
    'upstream bench_plain_app {',
    `    server 127.0.0.1:${appPort};`,
    '    keepalive 16;',
    '}',
    'server {',
    `    listen 127.0.0.1:${port};`,
    `    server_name ${appHost};`,
    '    location / {',
    '        proxy_http_version 1.1;',
    '        proxy_set_header Connection "";',
    '        proxy_pass http://bench_plain_app;',
    '    }',
    '}',
    '',
  ].join('\n');
}

/** The top of an nginx.conf running in the foreground with every file under `dir` (as the e2e support), one worker. */
function nginxMainHead(dir) {
  return [
    'daemon off;',
    // One worker: one core's worth of proxy, the same for every variant (documented in docs/benchmark.md).
    'worker_processes 1;',
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${path.join(dir, 'error.log')} warn;`,
    'events { worker_connections 4096; }',
    'http {',
    // No access log: the same for every variant, and the bench measures proxying, not disk writes.
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${path.join(dir, t)};`),
  ];
}

function startProcess(name, command, args, options, logFile) {
  const out = fs.openSync(logFile, 'a');
  const child = spawn(command, args, { ...options, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  return child;
}

async function waitForHttp(child, port, host, name, logFile) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}; see ${logFile}: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    const up = await new Promise((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/', method: 'HEAD', headers: { host }, timeout: 1000, agent: false }, (res) => {
        res.resume();
        resolve(true);
      });
      req.on('error', () => resolve(false));
      req.on('timeout', () => req.destroy());
      req.end();
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`${name} did not answer on port ${port}; see ${logFile}`);
    await sleep(100);
  }
}

/** Every pid of the process tree under `pid` (nginx: the master and its worker). */
function treePids(pid) {
  const pids = [pid];
  for (let i = 0; i < pids.length; i += 1) {
    try {
      const kids = fs.readFileSync(`/proc/${pids[i]}/task/${pids[i]}/children`, 'utf8').trim();
      if (kids !== '') pids.push(...kids.split(/\s+/).map(Number));
    } catch {
      // gone, or no children file
    }
  }
  return pids;
}

/**
 * nginx with the shipped default.conf (maps, the server refusing unknown hosts) and the
 * protected-app template (or a variant) for `appHost`, the forward auth at `forwardAuthUrl`.
 * `extra`: more server blocks (nginx's own auth_basic comparison).
 */
async function startNginx({ dir, name, port, appHost, appPort, forwardAuthUrl, authHost, gatewayPort, variant = 'shipped', extraServers = [] }) {
  fs.mkdirSync(dir, { recursive: true });
  const forwardAuthHostPort = new URL(forwardAuthUrl).host;
  const files =
    variant === 'plain'
      ? [['plain.conf', plainKeepAliveProxy(port, appHost, appPort)]]
      : renderWithScript(path.join(dir, 'conf.d'), { port, appHost, appPort, authHost, gatewayPort, forwardAuthHostPort, variant });
  files.push(...extraServers.map((s, i) => [`extra-${i}.conf`, s]));
  const includes = [];
  for (const [file, text] of files) {
    fs.writeFileSync(path.join(dir, file), text);
    includes.push(`  include ${path.join(dir, file)};`);
  }
  const config = path.join(dir, 'nginx.conf');
  fs.writeFileSync(config, [...nginxMainHead(dir), ...includes, '}', ''].join('\n'));
  const logFile = path.join(dir, 'stdout.log');
  const child = startProcess(name, 'nginx', ['-p', dir, '-c', config, '-e', path.join(dir, 'error.log')], { cwd: dir }, logFile);
  await waitForHttp(child, port, appHost, name, logFile);
  return proxyHandle(name, child, port, appHost);
}

/**
 * caddy running the shipped Caddyfile unchanged (as the e2e support does): placeholders from the
 * environment, http:// site addresses on a loopback port, admin off, storage under `dir`. With
 * `unprotected`, a Caddyfile of one site that only proxies to the app (caddy's reference for (a)).
 * Variant `previous` (MEASUREMENT VARIANT, not an example): the shipped file without its
 * `header_up Prefer return=minimal` line, so the gateway's 2xx carries its body as before ADR 0036.
 */
async function startCaddy({ dir, name, port, appHost, appPort, authHost, gatewayPort, forwardAuthHostPort, unprotected = false, variant = 'shipped' }) {
  fs.mkdirSync(dir, { recursive: true });
  let config = path.join(EXAMPLES, 'caddy', 'Caddyfile');
  if (variant === 'previous') {
    config = path.join(dir, 'Caddyfile');
    fs.writeFileSync(
      config,
      editOnce(fs.readFileSync(path.join(EXAMPLES, 'caddy', 'Caddyfile'), 'utf8'), /^\s*header_up\s+Prefer\s+return=minimal\s*\n/m, '', variant),
    );
  }
  if (unprotected) {
    config = path.join(dir, 'Caddyfile');
    fs.writeFileSync(config, `{\n\tadmin off\n\tdefault_bind 127.0.0.1\n}\n\nhttp://${appHost}:${port} {\n\treverse_proxy 127.0.0.1:${appPort}\n}\n`);
  }
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    CADDY_ADMIN: 'off',
    CADDY_BIND: '127.0.0.1',
    AUTH_ADDRESS: `http://${authHost}:${port}`,
    PORTCULLIS_UPSTREAM: `127.0.0.1:${gatewayPort}`,
    PORTCULLIS_FORWARD_AUTH: forwardAuthHostPort,
    APP_ADDRESS: `http://${appHost}:${port}`,
    APP_UPSTREAM: `127.0.0.1:${appPort}`,
    CATCH_ALL_ADDRESS: `http://:${port}`,
  };
  const logFile = path.join(dir, 'caddy.log');
  const child = startProcess(name, 'caddy', ['run', '--config', config, '--adapter', 'caddyfile'], { env, cwd: dir }, logFile);
  await waitForHttp(child, port, appHost, name, logFile);
  return proxyHandle(name, child, port, appHost);
}

function proxyHandle(name, child, port, host) {
  return {
    name,
    child,
    pid: child.pid,
    url: `http://127.0.0.1:${port}`,
    host,
    pids: () => treePids(child.pid),
  };
}

module.exports = { startNginx, startCaddy, EXAMPLES };
