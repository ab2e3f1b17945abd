import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'otplib';
import type { Logger } from '../../../src/adapters/system/logger';
import { loadConfig } from '../../../src/composition/config';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { cookieFrom, startGateway, type RunningGateway } from '../../support/server';
import { waitFor } from '../../support/wait';

const dir = mkdtempSync(join(tmpdir(), 'portcullis-access-'));
const rulesFile = join(dir, 'access.yaml');
const passwordFile = join(dir, 'wiki-password');

const RULES = `
default_policy: allow_authenticated
apps:
  wiki:
    domain: [wiki.example.test, "*.wiki.example.test"]
    users: { allow: [alice, "/^ops-/"], block: [] }
    path: { allow: ["^/public/"] }
    ip: { block: ["203.0.113.0/24", "2001:db8:bad::/48"], bypass: ["10.9.0.0/16", "2001:db8:9::/48"] }
    response:
      headers: { X-Team: wiki }
      basicauth: { username: svc, password_file: ${passwordFile} }
  secure:
    require_totp: true
  docs:
    path: { block: ["^/admin"] }
`;

class RecordingLogger implements Logger {
  readonly lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  debug(msg: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: 'debug', msg, fields });
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: 'info', msg, fields });
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: 'warn', msg, fields });
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: 'error', msg, fields });
  }
}

interface Ask {
  host: string;
  uri?: string;
  cookie?: string;
  html?: boolean;
  forwardedFor?: string;
  extra?: Record<string, string>;
}

function ask(gw: RunningGateway, proxy: 'traefik' | 'nginx' | 'caddy', a: Ask): Promise<Response> {
  const headers: Record<string, string> = { accept: a.html === false ? 'application/json' : 'text/html,*/*', ...a.extra };
  if (proxy === 'nginx') headers['x-original-url'] = `https://${a.host}${a.uri ?? '/'}`;
  else {
    headers['x-forwarded-proto'] = 'https';
    headers['x-forwarded-host'] = a.host;
    headers['x-forwarded-uri'] = a.uri ?? '/';
  }
  if (a.cookie !== undefined) headers.cookie = a.cookie;
  if (a.forwardedFor !== undefined) headers['x-forwarded-for'] = a.forwardedFor;
  return fetch(`${gw.url}/api/auth/${proxy}`, { headers, redirect: 'manual' });
}

async function login(gw: RunningGateway, user: string, totp = false): Promise<string> {
  const res = await fetch(`${gw.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: user, password: 'pw' }),
  });
  expect(res.status).toBe(200);
  let cookie = `portcullis-session=${cookieFrom(res, 'portcullis-session')?.value}`;
  if (totp) {
    const code = await generate({ secret: TOTP_SECRET });
    const t = await fetch(`${gw.url}/api/totp`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ code }) });
    expect(t.status).toBe(200);
    cookie = `portcullis-session=${cookieFrom(t, 'portcullis-session')?.value}`;
  }
  return cookie;
}

const USERS = ['alice', 'carol', 'ops-bob']
  .map((u) => `${u}:${hashOf('pw')}`)
  .concat(`tom:${hashOf('pw')}:${TOTP_SECRET}`)
  .join(',');

describe('forward auth with access rules (ACCESS_CONFIG)', () => {
  let gw: RunningGateway;
  let logger: RecordingLogger;
  let alice: string;
  let carol: string;
  let tom: string;

  beforeAll(async () => {
    writeFileSync(passwordFile, 'upstream-secret\n');
    writeFileSync(rulesFile, RULES);
    logger = new RecordingLogger();
    gw = await startGateway({ USERS, ACCESS_CONFIG: rulesFile }, { [TOKENS.Logger]: logger });
    [alice, carol, tom] = await Promise.all([login(gw, 'alice'), login(gw, 'carol'), login(gw, 'tom', true)]);
  });
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe.each(['traefik', 'nginx', 'caddy'] as const)('through %s', (proxy) => {
    it('lets an allowed person through with Remote-* and the configured headers, never echoing forged ones', async () => {
      const res = await ask(gw, proxy, {
        host: 'wiki.example.test',
        uri: '/page',
        cookie: alice,
        extra: { 'remote-user': 'root', 'remote-groups': 'admins', 'x-team': 'evil' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('remote-user')).toBe('alice');
      expect(res.headers.get('remote-groups')).toBeNull();
      expect(res.headers.get('x-team')).toBe('wiki');
      expect(res.headers.get('authorization')).toBe(`Basic ${Buffer.from('svc:upstream-secret').toString('base64')}`);
      expect(await res.json()).toEqual({ status: 200, code: 'authenticated', message: 'Authenticated' });
    });

    it('refuses a logged-in person who is not allowed: the unauthorized page in browser mode, 403 otherwise', async () => {
      const res = await ask(gw, proxy, { host: 'wiki.example.test', uri: '/page', cookie: carol });
      const target = 'https://auth.example.test/unauthorized?resource=wiki&username=carol';
      if (proxy === 'nginx') {
        expect(res.status).toBe(403);
        expect(res.headers.get('x-portcullis-location')).toBe(target);
      } else {
        expect(res.status).toBe(302);
        expect(res.headers.get('location')).toBe(target);
      }
      expect(res.headers.get('remote-user')).toBeNull();
      const api = await ask(gw, proxy, { host: 'wiki.example.test', uri: '/page', cookie: carol, html: false });
      expect(api.status).toBe(403);
      expect(await api.json()).toEqual({ status: 403, code: 'forbidden', message: 'Forbidden' });
    });

    it('sends an anonymous request on a private path to login', async () => {
      const res = await ask(gw, proxy, { host: 'wiki.example.test', uri: '/page', html: false });
      expect(res.status).toBe(401);
    });

    it('lets an anonymous request reach a public path, without identity headers', async () => {
      const res = await ask(gw, proxy, { host: 'wiki.example.test', uri: '/public/page' });
      expect(res.status).toBe(200);
      expect(res.headers.get('remote-user')).toBeNull();
      expect(res.headers.get('x-team')).toBe('wiki');
    });

    it.each(['/public/..%2fpage', '/public%2f..%2fpage', '/public/%2e%2e/page', '/public/..;/page', '/public;/../page', '/PUBLIC/page', '/public%00/../x'])(
      'does not take %s for a public path',
      async (uri) => {
        const res = await ask(gw, proxy, { host: 'wiki.example.test', uri, html: false });
        expect(res.status).not.toBe(200);
      },
    );

    it.each(['/admin', '/ADMIN', '/%61dmin', '/admin;x', '/;x/admin'])('asks for login on the blocked path %s of an otherwise public app', async (uri) => {
      const res = await ask(gw, proxy, { host: 'docs.example.test', uri, html: false });
      expect(res.status).toBe(401);
    });

    // nginx and caddy forward these as they are and a prefix-routing upstream serves /admin/ for
    // them, while a normalising gateway judged /public/x: refused, whoever asks.
    it.each(['/admin/..;/public/x', '/admin/%2e%2e/public/x', '/admin/..%2fpublic/x', '/admin/..%5cpublic/x', '/public/../admin'])(
      'refuses the ambiguous path %s with 400 instead of deciding on one reading of it',
      async (uri) => {
        for (const cookie of [undefined, alice]) {
          const res = await ask(gw, proxy, { host: 'wiki.example.test', uri, cookie, html: false });
          expect(res.status).toBe(400);
          expect(await res.json()).toEqual({ status: 400, code: 'ambiguous_path', message: 'Ambiguous path' });
          expect(res.headers.get('x-team')).toBeNull();
          expect(res.headers.get('authorization')).toBeNull();
        }
        const browser = await ask(gw, proxy, { host: 'docs.example.test', uri: '/x/../admin' });
        expect(browser.status).toBe(400);
        expect(browser.headers.get('location')).toBeNull();
      },
    );

    it('lets through a public path whose every reading is public, and asks for login when one reading is not', async () => {
      expect((await ask(gw, proxy, { host: 'wiki.example.test', uri: '/public//page;v=1', html: false })).status).toBe(200);
      expect((await ask(gw, proxy, { host: 'wiki.example.test', uri: '/public;v=1/page', html: false })).status).toBe(401);
    });

    it.each(['//admin', '/x\\..\\admin'])('refuses the malformed forwarded path %s outright with 400', async (uri) => {
      const res = await ask(gw, proxy, { host: 'docs.example.test', uri, html: false });
      expect(res.status).toBe(400);
    });

    it('asks for login on a blocked path hidden behind an encoded NUL', async () => {
      expect((await ask(gw, proxy, { host: 'docs.example.test', uri: '/admin%00', html: false })).status).toBe(401);
    });

    it('matches the host case-insensitively and ignores a trailing dot, but not look-alike hosts', async () => {
      expect((await ask(gw, proxy, { host: 'WIKI.Example.TEST.', uri: '/page', cookie: carol, html: false })).status).toBe(403);
      expect((await ask(gw, proxy, { host: 'a.wiki.example.test', uri: '/page', cookie: carol, html: false })).status).toBe(403);
      // Hosts no application claims fall to default_policy: allow_authenticated.
      expect((await ask(gw, proxy, { host: 'evilwiki.example.test', uri: '/page', cookie: carol, html: false })).status).toBe(200);
    });

    it('answers a blocked address with 403 even in browser mode and on public paths', async () => {
      const res = await ask(gw, proxy, { host: 'wiki.example.test', uri: '/public/x', cookie: alice, forwardedFor: '203.0.113.5' });
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
      expect((await ask(gw, proxy, { host: 'wiki.example.test', uri: '/x', forwardedFor: '2001:db8:bad::1' })).status).toBe(403);
    });

    it('lets a bypass address through without login (IPv4 and IPv6)', async () => {
      expect((await ask(gw, proxy, { host: 'wiki.example.test', uri: '/x', forwardedFor: '10.9.3.4', html: false })).status).toBe(200);
      expect((await ask(gw, proxy, { host: 'wiki.example.test', uri: '/x', forwardedFor: '198.51.100.1, 2001:db8:9::7', html: false })).status).toBe(200);
    });

    it('denies when the forwarded client address cannot be read', async () => {
      const res = await ask(gw, proxy, { host: 'wiki.example.test', uri: '/public/x', forwardedFor: 'garbage', html: false });
      expect(res.status).toBe(403);
    });

    it('demands a session that passed TOTP where require_totp is set', async () => {
      expect((await ask(gw, proxy, { host: 'secure.example.test', cookie: alice, html: false })).status).toBe(403);
      const res = await ask(gw, proxy, { host: 'secure.example.test', cookie: tom, html: false });
      expect(res.status).toBe(200);
      expect(res.headers.get('remote-user')).toBe('tom');
    });
  });

  it('decides nginx requests on X-Original-URL: a client cannot name a public path with X-Forwarded-Host/-Uri', async () => {
    // nginx's auth_request passes the client's headers on; the configuration sets only X-Original-URL.
    const headers = {
      accept: 'application/json',
      'x-original-url': 'https://wiki.example.test/page',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'wiki.example.test',
      'x-forwarded-uri': '/public/x',
    };
    const res = await fetch(`${gw.url}/api/auth/nginx`, { headers, redirect: 'manual' });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-team')).toBeNull();
  });

  it.each(['traefik', 'caddy'] as const)(
    "refuses a forwarded host a proxy appended to the client's with 400, and audits it with the header (%s)",
    async (proxy) => {
      // docs.example.test is public outside /admin, wiki.example.test is not: the left-most value is the client's.
      const res = await ask(gw, proxy, {
        host: 'docs.example.test, wiki.example.test',
        uri: '/page',
        html: false,
        extra: { 'x-request-id': `repeat-${proxy}` },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ status: 400, code: 'bad_forwarded_headers', message: 'Repeated forwarded header X-Forwarded-Host' });
      const audit = logger.lines.find((l) => l.msg === 'audit' && l.fields?.requestId === `repeat-${proxy}`);
      expect(audit?.fields).toMatchObject({ event: 'forwarded_request_refused', proxy, field: 'X-Forwarded-Host', problem: 'repeated' });
    },
  );

  it('audits an ambiguous path as a refusal with the reason', async () => {
    const res = await ask(gw, 'caddy', { host: 'wiki.example.test', uri: '/admin/..;/public/x', html: false, extra: { 'x-request-id': 'ambiguous-1' } });
    expect(res.status).toBe(400);
    const audit = logger.lines.find((l) => l.msg === 'audit' && l.fields?.requestId === 'ambiguous-1');
    expect(audit?.fields).toMatchObject({ event: 'access_denied', host: 'wiki.example.test', reason: 'ambiguous_path' });
  });

  it('reloads the rules when the file changes, and keeps them when an edit is broken', async () => {
    const carolOnWiki = async () => (await ask(gw, 'traefik', { host: 'wiki.example.test', uri: '/page', cookie: carol, html: false })).status;
    expect(await carolOnWiki()).toBe(403);
    writeFileSync(rulesFile, RULES.replace('allow: [alice, "/^ops-/"]', 'allow: [alice, carol]'));
    await waitFor(async () => (await carolOnWiki()) === 200, 'the new rules to let carol in');

    const refusals = logger.lines.filter((l) => l.msg.startsWith('access rules not reloaded')).length;
    writeFileSync(rulesFile, 'apps:\n  wiki: [broken\n');
    await waitFor(() => logger.lines.filter((l) => l.msg.startsWith('access rules not reloaded')).length > refusals, 'the broken edit to be refused');
    expect(await carolOnWiki()).toBe(200);
    expect(logger.lines.map((l) => JSON.stringify(l)).join('\n')).not.toContain('upstream-secret');

    writeFileSync(rulesFile, RULES);
    await waitFor(async () => (await carolOnWiki()) === 403, 'the restored rules');
  });
});

describe('client address behind an untrusted peer', () => {
  let gw: RunningGateway;
  let rules: string;
  beforeAll(async () => {
    rules = mkdtempSync(join(tmpdir(), 'portcullis-access-'));
    writeFileSync(join(rules, 'access.yaml'), 'apps:\n  wiki:\n    ip: { block: ["203.0.113.0/24"], bypass: ["10.9.0.0/16"] }\n');
    gw = await startGateway({ USERS: `alice:${hashOf('pw')}`, ACCESS_CONFIG: join(rules, 'access.yaml'), TRUSTED_PROXIES: '192.0.2.1/32' });
  });
  afterAll(async () => {
    await gw.close();
    rmSync(rules, { recursive: true, force: true });
  });

  it.each(['traefik', 'nginx', 'caddy'] as const)('ignores a forged bypass address in X-Forwarded-For from an untrusted peer (%s)', async (proxy) => {
    const res = await ask(gw, proxy, { host: 'wiki.example.test', forwardedFor: '10.9.0.1', html: false });
    expect(res.status).toBe(401);
  });

  it.each(['traefik', 'nginx', 'caddy'] as const)(
    'lets the socket address decide, not a blocked X-Forwarded-For from an untrusted peer (%s)',
    async (proxy) => {
      const res = await ask(gw, proxy, { host: 'wiki.example.test', forwardedFor: '203.0.113.9', html: false });
      expect(res.status).toBe(401);
    },
  );
});

describe('client address under the default TRUSTED_PROXIES', () => {
  let gw: RunningGateway;
  let rules: string;
  beforeAll(async () => {
    rules = mkdtempSync(join(tmpdir(), 'portcullis-access-'));
    writeFileSync(join(rules, 'access.yaml'), 'apps:\n  wiki:\n    ip: { bypass: ["10.20.0.0/16"] }\n');
    gw = await startGateway({ USERS: `alice:${hashOf('pw')}`, ACCESS_CONFIG: join(rules, 'access.yaml') });
  });
  afterAll(async () => {
    await gw.close();
    rmSync(rules, { recursive: true, force: true });
  });

  // The gateway's peer here is a proxy on loopback that appended the LAN client's address 10.9.0.7;
  // everything left of it is what the client wrote.
  it.each(['traefik', 'nginx', 'caddy'] as const)(
    'does not let a LAN client at 10.9.0.7 reach an ip.bypass app by prefixing X-Forwarded-For (%s)',
    async (proxy) => {
      for (const forwardedFor of ['10.20.0.1, 10.9.0.7', '10.20.0.1, 192.168.1.1, 10.9.0.7']) {
        const res = await ask(gw, proxy, { host: 'wiki.example.test', forwardedFor, html: false });
        expect(res.status).toBe(401);
      }
    },
  );

  it.each(['traefik', 'nginx', 'caddy'] as const)('still lets a bypass address through when the proxy on loopback reports it (%s)', async (proxy) => {
    const res = await ask(gw, proxy, { host: 'wiki.example.test', forwardedFor: '203.0.113.9, 10.20.0.1', html: false });
    expect(res.status).toBe(200);
  });
});

describe('ACCESS_CONFIG at start-up', () => {
  it('lists every problem of the rules file together with the other configuration problems', () => {
    const d = mkdtempSync(join(tmpdir(), 'portcullis-access-'));
    try {
      writeFileSync(join(d, 'bad.yaml'), 'default_policy: nope\napps:\n  wiki:\n    ip: { allow: [x] }\n');
      const loaded = loadConfig({
        env: { APP_URL: 'https://auth.example.test', SECRET: 'short', USERS: `alice:${hashOf('pw')}`, ACCESS_CONFIG: join(d, 'bad.yaml') },
      });
      expect(loaded.ok).toBe(false);
      if (loaded.ok) return;
      expect(loaded.problems).toEqual([
        'SECRET must be at least 32 characters long',
        `ACCESS_CONFIG ${join(d, 'bad.yaml')}: line 1: default_policy: must be allow_authenticated or deny`,
        `ACCESS_CONFIG ${join(d, 'bad.yaml')}: line 4: apps.wiki.ip.allow: "x" is not an IP address or CIDR`,
      ]);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('refuses to start when the file is missing', () => {
    const loaded = loadConfig({
      env: { APP_URL: 'https://auth.example.test', SECRET: 'x'.repeat(40), USERS: `alice:${hashOf('pw')}`, ACCESS_CONFIG: '/nonexistent/access.yaml' },
    });
    expect(loaded).toEqual({ ok: false, problems: ['ACCESS_CONFIG /nonexistent/access.yaml: cannot read /nonexistent/access.yaml'] });
  });

  it('accepts --access-config as a flag', () => {
    const loaded = loadConfig({
      env: { APP_URL: 'https://auth.example.test', SECRET: 'x'.repeat(40), USERS: `alice:${hashOf('pw')}` },
      argv: ['--access-config', '/nonexistent/a.yaml'],
    });
    expect(loaded.ok).toBe(false);
  });
});
