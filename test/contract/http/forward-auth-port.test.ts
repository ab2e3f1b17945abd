import type { Server } from 'node:http';
import { connect } from 'node:net';
import { loadConfig } from '../../../src/composition/config';
import { createGateway, type Gateway } from '../../../src/composition/gateway';
import { freePort } from '../../support/net';
import { startGatewayProcess, type Child } from '../../support/process';
import { hashOf, TEST_SECRET } from '../../support/credentials';

/** One raw HTTP/1.1 exchange (any request target, absolute-form included); resolves the status line and body. */
function rawHttp(port: number, head: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
    socket.write(`${head}\r\nConnection: close\r\n\r\n`);
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test', 'x-forwarded-uri': '/page' };
const NOT_FOUND = { status: 404, code: 'not_found', message: 'Not found' };

describe('forward auth on its own listener (FORWARD_AUTH_PORT)', () => {
  let gateway: Gateway;
  const servers: Server[] = [];
  let publicUrl: string;
  let publicPort: number;
  let internalUrl: string;
  let cookie: string;

  beforeAll(async () => {
    const loaded = loadConfig({
      env: {
        APP_URL: 'https://auth.example.test',
        SECRET: TEST_SECRET,
        LOG_LEVEL: 'silent',
        USERS: `alice:${hashOf('pw')}`,
        FORWARD_AUTH_PORT: String(await freePort()),
      },
    });
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    gateway = createGateway(loaded.config);
    const pub = await gateway.listen(0, '127.0.0.1');
    const internal = await gateway.listenForwardAuth();
    if (internal === null) throw new Error('no forward-auth listener');
    servers.push(pub.server, internal.server);
    publicPort = pub.port;
    publicUrl = `http://127.0.0.1:${pub.port}`;
    internalUrl = `http://127.0.0.1:${internal.port}`;
    const login = await fetch(`${publicUrl}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'pw' }),
    });
    expect(login.status).toBe(200);
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  });
  afterAll(async () => {
    for (const s of servers) await close(s);
    await gateway.shutdown();
  });

  it('binds the forward-auth listener to loopback by default', () => {
    const addr = servers[1].address();
    expect(typeof addr === 'object' && addr !== null && addr.address).toBe('127.0.0.1');
  });

  it.each(['nginx', 'traefik', 'caddy'])('the public listener answers /api/auth/%s with the 404 envelope, even for a logged-in cookie', async (proxy) => {
    for (const method of ['GET', 'POST']) {
      const res = await fetch(`${publicUrl}/api/auth/${proxy}`, {
        method,
        redirect: 'manual',
        headers: { ...forwarded, cookie, 'x-original-url': 'https://app.example.test/' },
      });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('remote-user')).toBeNull();
      expect(await res.json()).toEqual(NOT_FOUND);
    }
  });

  it('the public listener refuses every other spelling of the forward-auth path too', async () => {
    for (const path of [
      '/api/auth',
      '/api/auth/',
      '/API/auth/nginx',
      '/api/%61uth/nginx',
      '/api//auth/nginx',
      '//api/auth/nginx',
      '/api/auth/nginx?x=1',
      '/api\\auth\\nginx',
    ]) {
      const res = await fetch(`${publicUrl}${path}`, { headers: { ...forwarded, cookie } });
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.headers.get('remote-user')).toBeNull();
    }
    const head = await fetch(`${publicUrl}/api/auth/nginx`, { method: 'HEAD', headers: { cookie } });
    expect(head.status).toBe(404);
  });

  it('the public listener refuses an absolute-form request for the forward-auth path', async () => {
    const res = await rawHttp(
      publicPort,
      `GET http://auth.example.test/api/auth/traefik HTTP/1.1\r\nHost: auth.example.test\r\nCookie: ${cookie}\r\nX-Forwarded-Host: app.example.test\r\nX-Forwarded-Uri: /`,
    );
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual(NOT_FOUND);
  });

  it('the public listener still serves the UI and the browser API', async () => {
    expect((await fetch(`${publicUrl}/login`)).status).toBe(200);
    const user = await fetch(`${publicUrl}/api/user`, { headers: { cookie } });
    expect(user.status).toBe(200);
    expect((await fetch(`${publicUrl}/api/healthcheck`)).status).toBe(200);
  });

  it('the forward-auth listener answers forward auth with the identity headers', async () => {
    const res = await fetch(`${internalUrl}/api/auth/traefik`, { headers: { ...forwarded, cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('remote-user')).toBe('alice');
    const anonymous = await fetch(`${internalUrl}/api/auth/nginx`, { headers: { 'x-original-url': 'https://app.example.test/page' } });
    expect(anonymous.status).toBe(401);
  });

  it('the forward-auth listener answers the liveness, readiness and health probes', async () => {
    expect((await fetch(`${internalUrl}/api/healthcheck`)).status).toBe(200);
    expect((await fetch(`${internalUrl}/api/ready`)).status).toBe(200);
    expect((await fetch(`${internalUrl}/api/health`)).status).toBe(200);
  });

  it('the forward-auth listener serves neither the UI nor the login API', async () => {
    for (const path of ['/', '/login', '/api/user', '/api/app']) {
      const res = await fetch(`${internalUrl}${path}`);
      expect([path, res.status]).toEqual([path, 404]);
      expect(await res.json()).toEqual(NOT_FOUND);
    }
    const login = await fetch(`${internalUrl}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'pw' }),
    });
    expect(login.status).toBe(404);
    expect(login.headers.get('set-cookie')).toBeNull();
  });
});

describe('forward auth without FORWARD_AUTH_PORT', () => {
  it('stays on the public listener, and there is no second listener', async () => {
    const loaded = loadConfig({ env: { APP_URL: 'https://auth.example.test', SECRET: TEST_SECRET, LOG_LEVEL: 'silent', USERS: `alice:${hashOf('pw')}` } });
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    const gateway = createGateway(loaded.config);
    const { server, port } = await gateway.listen(0, '127.0.0.1');
    try {
      expect(await gateway.listenForwardAuth()).toBeNull();
      const res = await fetch(`http://127.0.0.1:${port}/api/auth/traefik`, { redirect: 'manual', headers: { ...forwarded, accept: 'text/html' } });
      expect(res.status).toBe(302);
    } finally {
      await close(server);
      await gateway.shutdown();
    }
  });
});

describe('portcullis serve with FORWARD_AUTH_PORT (the built process)', () => {
  let child: Child | null = null;
  afterEach(async () => {
    await child?.stop();
    child = null;
  });

  it('listens for forward auth on 127.0.0.1 only, says where in its start line, and keeps it off the public port', async () => {
    const [port, forwardAuthPort] = [await freePort(), await freePort()];
    child = startGatewayProcess({
      APP_URL: 'https://auth.example.test',
      SECRET: TEST_SECRET,
      USERS: `alice:${hashOf('pw')}`,
      PORT: String(port),
      ADDRESS: '127.0.0.1',
      FORWARD_AUTH_PORT: String(forwardAuthPort),
    });
    const [line] = await child.waitFor(/^.*portcullis listening.*$/m);
    expect(line).toContain(`"forwardAuth":"127.0.0.1:${forwardAuthPort}"`);
    expect((await fetch(`http://127.0.0.1:${port}/api/auth/nginx`, { headers: { 'x-original-url': 'https://app.example.test/' } })).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${forwardAuthPort}/api/auth/nginx`, { headers: { 'x-original-url': 'https://app.example.test/' } })).status).toBe(
      401,
    );
  }, 30_000);
});
