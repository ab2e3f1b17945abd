/* eslint-disable @typescript-eslint/no-explicit-any -- parsed YAML of a format we do not own (compose): the assertions are the types. */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import { startEchoApp } from '../e2e/support/upstream';
import { EXAMPLES } from '../e2e/support/proxies';
import { freePorts } from '../support/net';
import { ROOT, startChild, waitForHttp, type Child } from '../support/process';

/**
 * examples/docker-compose.yml started as its comment says, without Docker (there is no engine
 * here): each service runs as a process with exactly the command, environment and files the
 * compose file gives it. Translations, and only these: a named volume is a temp dir; the image's
 * WORKDIR is this built checkout; a compose host name (portcullis, whoami) is 127.0.0.1; a port
 * inside a container is a free loopback port; Caddy's admin endpoint is off (inside its container
 * it is that container's own localhost).
 */

const compose = parse(readFileSync(join(EXAMPLES, 'docker-compose.yml'), 'utf8'));
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
const WORKDIR = /^WORKDIR (\S+)$/m.exec(finalStage)?.[1] as string;
const IMAGE_CMD = JSON.parse(/^CMD (\[.*\])$/m.exec(finalStage)?.[1] as string) as string[];
const IMAGE_ENV = Object.fromEntries([...finalStage.matchAll(/^ENV (\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]));

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}
function ask(port: number, host: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host, ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('examples/docker-compose.yml, started as its comment says (no Docker: its services as processes)', () => {
  let dir: string;
  const children: Child[] = [];
  let echo: Awaited<ReturnType<typeof startEchoApp>>;
  let ports: { gateway: number; forwardAuth: number; caddy: number };
  const volumes: Record<string, string> = {};

  /** A container path on a named volume → its temp dir; a path relative to WORKDIR → this checkout. */
  const hostPath = (service: any, value: string): string => {
    for (const mount of (service.volumes ?? []) as string[]) {
      const [source, target] = mount.split(':');
      if (source in volumes && (value === target || value.startsWith(`${target}/`))) return volumes[source] + value.slice(target.length);
      if (source.startsWith('.') && value === target) return join(EXAMPLES, source);
    }
    if (value.startsWith(`${WORKDIR}/`)) return join(ROOT, value.slice(WORKDIR.length + 1));
    return value;
  };
  /** Compose host names and container ports → this machine's loopback and free ports. */
  const hostValue = (value: string): string =>
    value
      .replace(/\bportcullis:3000\b/g, `127.0.0.1:${ports.gateway}`)
      .replace(/\bportcullis:3001\b/g, `127.0.0.1:${ports.forwardAuth}`)
      .replace(/\bwhoami:80\b/g, `127.0.0.1:${echo.port}`)
      .replace(/^(http:\/\/[^/]*):80$/, `$1:${ports.caddy}`);
  /** Runs an image's program: `node <WORKDIR-relative script> ...` from this checkout. */
  const run = (name: string, service: any, argv: readonly string[], env: Record<string, string>): Child => {
    const [program, ...args] = argv;
    expect(program).toBe('node');
    const resolved = args.map((a) => (isAbsolute(a) ? hostPath(service, a) : a.startsWith('-') || !a.includes('/') ? a : join(ROOT, a)));
    const child = startChild(name, process.execPath, resolved, { env: { ...IMAGE_ENV, ...env }, cwd: ROOT, logFile: join(dir, `${name}.log`) });
    children.push(child);
    return child;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-compose-demo-'));
    for (const name of Object.keys(compose.volumes ?? {})) {
      volumes[name] = join(dir, 'volumes', name);
      mkdirSync(volumes[name], { recursive: true });
    }
    echo = await startEchoApp();
    const [gateway, forwardAuth, caddy] = await freePorts(3);
    ports = { gateway, forwardAuth, caddy };
  });
  afterAll(async () => {
    for (const child of children.reverse()) await child.stop();
    await echo?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('declares a one-shot init service the gateway waits for, and gives the gateway no secret or hash of its own', () => {
    const gateway = compose.services.portcullis;
    expect(gateway.depends_on['portcullis-init']).toEqual({ condition: 'service_completed_successfully' });
    expect(gateway.environment.SECRET).toBeUndefined();
    expect(gateway.environment.USERS).toBeUndefined();
    expect(readFileSync(join(EXAMPLES, 'docker-compose.yml'), 'utf8')).not.toMatch(/\$\$2[aby]\$\$/);
    expect(compose.services['portcullis-init'].volumes).toEqual(gateway.volumes);
  });

  it('runs the init step (twice, as two `up`s would: the second keeps what the first made)', async () => {
    const init = compose.services['portcullis-init'];
    const first = run('init-1', init, init.command, init.environment ?? {});
    expect(await first.exited).toBe(0);
    const secret = readFileSync(hostPath(compose.services.portcullis, compose.services.portcullis.environment.SECRET_FILE), 'utf8');
    const second = run('init-2', init, init.command, init.environment ?? {});
    expect(await second.exited).toBe(0);
    expect(second.stdout).toMatch(/kept .*secret/);
    expect(readFileSync(hostPath(compose.services.portcullis, compose.services.portcullis.environment.SECRET_FILE), 'utf8')).toBe(secret);
  });

  it('starts the gateway with exactly its compose environment, healthy by its own health check', async () => {
    const service = compose.services.portcullis;
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries<string>(service.environment)) env[name] = hostPath(service, String(value));
    // The container's ports and the wildcard address, as loopback ports here; DATA_DIR is the image's default (WORKDIR/data), on the volume.
    Object.assign(env, { PORT: String(ports.gateway), FORWARD_AUTH_PORT: String(ports.forwardAuth), FORWARD_AUTH_ADDRESS: '127.0.0.1', DATA_DIR: hostPath(service, `${WORKDIR}/data`) });
    const gateway = run('portcullis', service, IMAGE_CMD, env);
    const [, ...check] = service.healthcheck.test as string[];
    const probe = check.map((a) => a.replace('127.0.0.1:3000', `127.0.0.1:${ports.gateway}`));
    const deadline = Date.now() + 20_000;
    for (;;) {
      expect({ exited: gateway.process.exitCode, stderr: gateway.stderr }).toEqual({ exited: null, stderr: expect.any(String) });
      const healthy = await new Promise<boolean>((resolve) => execFile(process.execPath, probe.slice(1), (error) => resolve(error === null)));
      if (healthy) break;
      if (Date.now() > deadline) throw new Error(`the gateway never became healthy: ${gateway.stdout}${gateway.stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  it("runs the compose Caddyfile with the real caddy in front, and the demo login (alice / portcullis-demo) reaches whoami", async () => {
    const service = compose.services.caddy;
    const env: Record<string, string> = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'caddy-config'), XDG_DATA_HOME: join(dir, 'caddy-data'), CADDY_ADMIN: 'off', CADDY_BIND: '127.0.0.1' };
    for (const [name, value] of Object.entries<string>(service.environment)) env[name] = hostValue(String(value));
    const caddyfile = hostPath(service, '/etc/caddy/Caddyfile');
    const caddy = startChild('caddy', 'caddy', ['run', '--config', caddyfile, '--adapter', 'caddyfile'], { env, cwd: dir, logFile: join(dir, 'caddy.log') });
    children.push(caddy);
    const appHost = new URL(service.environment.APP_ADDRESS).hostname;
    const authHost = new URL(service.environment.AUTH_ADDRESS).hostname;
    await waitForHttp(caddy, ports.caddy, appHost);

    const anonymous = await ask(ports.caddy, appHost, '/', { headers: { accept: 'text/html' } });
    expect(anonymous.status).toBe(302);
    expect(String(anonymous.headers.location)).toMatch(/^http:\/\/auth\.example\.localhost\/login\?/);

    const body = JSON.stringify({ username: 'alice', password: 'portcullis-demo' });
    const login = await ask(ports.caddy, authHost, '/api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect({ status: login.status, body: login.body }).toEqual({ status: 200, body: expect.stringContaining('"totpPending":"false"') });
    const cookie = ([] as string[]).concat(login.headers['set-cookie'] ?? []).find((c) => c.startsWith('portcullis-session='))?.split(';')[0];
    expect(cookie).toBeDefined();

    const page = await ask(ports.caddy, appHost, '/?format=json', { headers: { cookie: cookie as string } });
    expect(page.status).toBe(200);
    expect(JSON.parse(page.body).headers['remote-user']).toBe('alice');
  });
});
