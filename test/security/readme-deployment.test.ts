import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLES, fillTemplate, nginxMainHead, waitForTls } from '../e2e/support/proxies';
import { TEST_SECRET, hashOf } from '../support/credentials';
import { freePorts } from '../support/net';
import { startChild, startGatewayProcess, waitForHttp, type Child } from '../support/process';
import { selfSignedCertificate } from '../support/tls';
import { startKoaApp, type Served } from './support/koa-app';

/**
 * Review item 9: the README's nginx deployment, run as written. Its shell blocks are read from
 * README.md (the gateway's start command and the render command), and docs/getting-started.md
 * repeats them word for word with the nginx snippets the README leaves to it; only what cannot be
 * used on a test machine changes: host names (example.test), loopback ports instead of
 * 443/80/3000/3001, and a self-signed certificate. Every nginx snippet of either must be in the
 * configuration nginx runs, and a client's own X-Forwarded-For must not reach `ip.bypass`.
 */

const ROOT = join(EXAMPLES, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const GETTING_STARTED = readFileSync(join(ROOT, 'docs', 'getting-started.md'), 'utf8');
const HOSTS = { auth: 'auth.example.test', app: 'app.example.test', lan: 'lan.example.test' } as const;

/** The fenced blocks of a Markdown text with their language, each block's lines without the list indentation. */
function blocks(language: string, markdown = README): string[][] {
  const found: string[][] = [];
  const re = new RegExp(`^( *)\`\`\`${language}\\n([\\s\\S]*?)^ *\`\`\`$`, 'gm');
  for (const m of markdown.matchAll(re)) found.push(m[2].split('\n').map((l) => l.slice(m[1].length)));
  return found;
}

/** `NAME=value` assignments of a shell command (continuation lines joined), in order. */
function assignments(command: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, name, value] of command.replace(/\\\n/g, ' ').matchAll(/(?:^|\s)([A-Z_]+)=(\S+)/g)) out[name] = value;
  return out;
}

const renderBlock = blocks('sh').find((b) => b.some((l) => l.includes('sh examples/nginx/render.sh')));
const startBlock = blocks('sh').find((b) => b.some((l) => l.includes('FORWARD_AUTH_PORT=') && l.includes('npm start')));

let dir: string;
const children: Child[] = [];
let closeApp: (() => Promise<void>) | undefined;
let served: Served[] = [];
let port = 0;
let ca: Buffer;
let rendered = '';

function get(host: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, path, servername: host, ca, agent: false, headers: { host: `${host}:${port}`, accept: 'application/json', ...headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  if (renderBlock === undefined || startBlock === undefined) throw new Error('README.md lost its gateway start or nginx render command');
  dir = mkdtempSync(join(tmpdir(), 'portcullis-readme-'));
  const app = await startKoaApp();
  closeApp = app.close;
  served = app.served;
  const [gatewayPort, forwardAuthPort, httpsPort, httpPort] = await freePorts(4);
  port = httpsPort;

  // Step 1 as written, on loopback ports; the README's FORWARD_AUTH_PORT (3001) and PORT (3000)
  // become free ones, and an access rule gives each application an `ip.bypass`.
  const start = assignments(startBlock.join('\n'));
  expect(Object.keys(start).sort()).toEqual(['ADDRESS', 'APP_URL', 'FORWARD_AUTH_PORT', 'SECRET_FILE', 'USERS_FILE']);
  writeFileSync(join(dir, 'users.txt'), `alice:${hashOf('alice-readme-pw')}\n`);
  writeFileSync(join(dir, 'secret.txt'), `${TEST_SECRET}\n`);
  writeFileSync(
    join(dir, 'access.yaml'),
    [
      'default_policy: allow_authenticated',
      'apps:',
      `  app: { domain: [${HOSTS.app}], ip: { bypass: ["10.9.0.0/16"] } }`,
      `  lan: { domain: [${HOSTS.lan}], ip: { bypass: ["127.0.0.0/8"] } }`,
      '',
    ].join('\n'),
  );
  const gateway = startGatewayProcess(
    {
      APP_URL: start.APP_URL.replace('auth.example.com', `${HOSTS.auth}:${port}`),
      SECRET: undefined,
      SECRET_FILE: join(dir, start.SECRET_FILE),
      USERS_FILE: join(dir, start.USERS_FILE),
      FORWARD_AUTH_PORT: String(forwardAuthPort),
      ADDRESS: start.ADDRESS,
      PORT: String(gatewayPort),
      ACCESS_CONFIG: join(dir, 'access.yaml'),
      LOG_LEVEL: 'warn',
    },
    { logFile: join(dir, 'gateway.log') },
  );
  children.push(gateway);
  await waitForHttp(gateway, gatewayPort, `${HOSTS.auth}:${port}`);

  // Step 2, nginx: the README's render command with its own variables (TLS on, as written).
  const written = assignments(renderBlock.join('\n'));
  expect(Object.keys(written).sort()).toEqual(['APP_HOST', 'APP_UPSTREAM', 'AUTH_HOST', 'TLS_CERTIFICATE', 'TLS_CERTIFICATE_KEY']);
  const cert = selfSignedCertificate(dir, Object.values(HOSTS));
  ca = readFileSync(cert.certificate);
  const out = join(dir, 'conf.d');
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    AUTH_HOST: written.AUTH_HOST.replace('auth.example.com', HOSTS.auth),
    TLS_CERTIFICATE: cert.certificate,
    TLS_CERTIFICATE_KEY: cert.key,
    // What the README leaves to the defaults (127.0.0.1:3000 and :3001, ports 443 and 80) moves to loopback ports.
    PORTCULLIS_UPSTREAM: `127.0.0.1:${gatewayPort}`,
    PORTCULLIS_FORWARD_AUTH: `127.0.0.1:${forwardAuthPort}`,
    HTTPS_PORT: String(httpsPort),
    APP_LISTEN: `127.0.0.1:${httpsPort} ssl`,
    HTTP_LISTEN: `127.0.0.1:${httpPort}`,
  };
  const script = join(EXAMPLES, 'nginx', 'render.sh');
  const upstream = written.APP_UPSTREAM.replace('127.0.0.1:8080', `127.0.0.1:${app.port}`);
  execFileSync('sh', [script, out], {
    env: { ...env, APP_HOST: written.APP_HOST.replace('app.example.com', HOSTS.app), APP_UPSTREAM: upstream },
    stdio: 'pipe',
  });
  execFileSync('sh', [script, '--app-only', out], { env: { ...env, APP_HOST: HOSTS.lan, APP_UPSTREAM: upstream }, stdio: 'pipe' });
  rendered = readdirSync(out)
    .map((f) => readFileSync(join(out, f), 'utf8'))
    .join('\n');
  mkdirSync(join(dir, 'nginx'));
  writeFileSync(join(dir, 'nginx.conf'), [...nginxMainHead(join(dir, 'nginx')), `  include ${out}/*.conf;`, '}', ''].join('\n'));
  const nginx = startChild('nginx', 'nginx', ['-p', join(dir, 'nginx'), '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'nginx', 'error.log')], {
    logFile: join(dir, 'nginx.log'),
  });
  children.push(nginx);
  await waitForTls(nginx, port, HOSTS.app);
}, 60_000);

afterAll(async () => {
  for (const child of children.reverse()) await child.stop();
  await closeApp?.();
  if (dir !== undefined && process.env.E2E_KEEP_DIR === undefined) rmSync(dir, { recursive: true, force: true });
});

describe("the README's nginx deployment, as written", () => {
  it("getting started repeats the README's start and render commands word for word", () => {
    expect(blocks('sh', GETTING_STARTED)).toEqual(expect.arrayContaining([startBlock, renderBlock]));
  });

  it('runs every nginx snippet the README and getting started show (rendered as render.sh renders it)', () => {
    const snippets = [...blocks('nginx'), ...blocks('nginx', GETTING_STARTED)];
    expect(snippets.length).toBeGreaterThanOrEqual(2);
    const lines = rendered.split('\n').map((l) => l.trim());
    for (const snippet of snippets) {
      const want = fillTemplate(snippet.join('\n'), {
        PORTCULLIS_FORWARD_AUTH: rendered.match(/upstream portcullis_forward_auth \{\s*server (\S+);/)?.[1] ?? '?',
      })
        .split('\n')
        .map((l) => l.trim());
      const at = lines.findIndex((_, i) => want.every((w, j) => lines[i + j] === w));
      expect({ snippet: want[0], found: at !== -1 }).toEqual({ snippet: want[0], found: true });
    }
  });

  it('the control: an address inside ip.bypass passes without login (the rule works through this nginx)', async () => {
    const probe = `lan-${Date.now()}`;
    const answer = await get(HOSTS.lan, '/public/x', { 'x-probe': probe });
    expect(answer.status).toBe(200);
    expect(served.filter((s) => s.probe === probe)).toHaveLength(1);
  });

  it("a client's own X-Forwarded-For naming a bypass address does not let an anonymous visitor in", async () => {
    for (const spoof of ['10.9.0.7', '10.9.0.7, 10.9.0.8', '127.0.0.1, 10.9.0.7']) {
      const probe = `spoof-${Math.random()}`;
      const answer = await get(HOSTS.app, '/public/x', { 'x-probe': probe, 'x-forwarded-for': spoof, 'x-real-ip': '10.9.0.7', forwarded: 'for=10.9.0.7' });
      expect({ spoof, status: answer.status }).toEqual({ spoof, status: 401 });
      expect(served.filter((s) => s.probe === probe)).toEqual([]);
    }
  });
});
