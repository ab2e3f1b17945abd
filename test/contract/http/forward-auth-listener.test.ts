import { createServer, type Server } from 'node:http';
import { BlockList } from 'node:net';
import Koa from 'koa';
import { ClientAddressResolver } from '../../../src/adapters/http/client-address';
import { forwardAuthDecider, isForwardAuthPath, proxyIndexOf } from '../../../src/adapters/http/forward-auth';
import { renderAnswer } from '../../../src/adapters/http/koa-renderer';
import { requestIdOf } from '../../../src/adapters/http/request-id';
import { hashOf } from '../../support/credentials';
import { startGateway, type RunningGateway } from '../../support/server';

/**
 * The gateway's server answers forward auth before Koa (`forwardAuthFirst`), writing precomputed
 * answers straight to the socket. The reference renders the same decisions through Koa's
 * response machinery (`renderAnswer`, as every other API route does): both must answer byte for byte alike.
 */
describe('forward auth before Koa', () => {
  let gw: RunningGateway;
  let koaOnly: Server;
  let koaUrl: string;
  let cookie: string;
  const basic = `Basic ${Buffer.from('alice:pw').toString('base64')}`;
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test', 'x-forwarded-uri': '/page?q=1' };

  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('pw')},bob:${hashOf('pw2')}` });
    const decide = forwardAuthDecider(gw.gateway.useCases.authorizeProxyRequest, {
      appUrl: gw.gateway.config.appUrl,
      clientAddress: new ClientAddressResolver(new BlockList()),
    });
    const reference = new Koa();
    reference.use(async (ctx, next) => {
      if (!isForwardAuthPath(ctx.req.url)) return next();
      const requestId = requestIdOf(ctx.get('x-request-id'));
      ctx.set('X-Request-Id', requestId);
      renderAnswer(ctx, (await decide(ctx.req, proxyIndexOf(ctx.req.url), requestId)).answer);
    });
    koaOnly = createServer(reference.callback());
    await new Promise<void>((resolve) => koaOnly.listen(0, '127.0.0.1', resolve));
    const addr = koaOnly.address();
    koaUrl = `http://127.0.0.1:${typeof addr === 'object' && addr !== null ? addr.port : 0}`;
    const login = await fetch(`${gw.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'pw' }),
    });
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  });
  afterAll(async () => {
    koaOnly.closeAllConnections();
    await new Promise((resolve) => koaOnly.close(resolve));
    await gw.close();
  });

  async function answer(base: string, path: string, init: RequestInit = {}): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const res = await fetch(`${base}${path}`, { redirect: 'manual', ...init });
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      // Every answer carries its own request id; compared for presence below, not for value.
      if (name === 'x-request-id') headers[name] = value === '' ? '' : 'present';
      else if (name !== 'date' && name !== 'connection' && name !== 'keep-alive') headers[name] = value;
    });
    return { status: res.status, headers, body: await res.text() };
  }

  const cases: Array<[string, string, RequestInit]> = [
    ['a cookie session', '/api/auth/traefik', { headers: { ...forwarded, accept: 'text/html' } }],
    ['HTTP Basic', '/api/auth/caddy', { headers: { ...forwarded, authorization: basic } }],
    ['a browser without credentials', '/api/auth/traefik', { headers: { ...forwarded, accept: 'text/html' } }],
    ['nginx without credentials', '/api/auth/nginx', { headers: { 'x-original-url': 'https://app.example.test/page?q=1', accept: 'text/html' } }],
    ['nginx without X-Original-URL', '/api/auth/nginx', { headers: { ...forwarded, accept: 'text/html' } }],
    ['a repeated forwarded host', '/api/auth/caddy', { headers: { ...forwarded, 'x-forwarded-host': 'evil.example.test, app.example.test' } }],
    ['an API client without credentials', '/api/auth/caddy', { headers: forwarded }],
    ['an unknown proxy', '/api/auth/apache', { headers: forwarded }],
    ['HEAD with a cookie', '/api/auth/nginx', { method: 'HEAD', headers: { 'x-original-url': 'https://app.example.test/page?q=1' } }],
    ['a malformed forwarded host', '/api/auth/traefik', { headers: { ...forwarded, 'x-forwarded-host': 'bad host' } }],
  ];

  it.each(cases)('answers %s the same on both paths', async (name, path, init) => {
    const withCookie = name.includes('cookie') ? { ...init, headers: { ...(init.headers as Record<string, string>), cookie } } : init;
    const raw = await answer(gw.url, path, withCookie);
    const viaKoa = await answer(koaUrl, path, withCookie);
    expect(raw).toEqual(viaKoa);
    expect(raw.status).toBeGreaterThanOrEqual(200);
  });

  it('lets a cookie session through with its identity headers, again and again', async () => {
    for (let i = 0; i < 3; i += 1) {
      const res = await answer(gw.url, '/api/auth/traefik', { headers: { ...forwarded, cookie } });
      expect(res.status).toBe(200);
      expect(res.headers['remote-user']).toBe('alice');
      expect(JSON.parse(res.body)).toEqual({ status: 200, code: 'authenticated', message: 'Authenticated' });
    }
  });

  it('keeps two Basic users apart on the cached path', async () => {
    const bob = `Basic ${Buffer.from('bob:pw2').toString('base64')}`;
    for (const [authorization, user] of [
      [basic, 'alice'],
      [bob, 'bob'],
      [basic, 'alice'],
      [bob, 'bob'],
    ]) {
      const res = await answer(gw.url, '/api/auth/traefik', { headers: { ...forwarded, authorization } });
      expect(res.status).toBe(200);
      expect(res.headers['remote-user']).toBe(user);
    }
  });

  it('still hands every other path to Koa', async () => {
    expect((await answer(gw.url, '/api/healthcheck')).status).toBe(200);
    expect((await answer(gw.url, '/api/nope')).status).toBe(404);
    expect((await answer(gw.url, '/api/authx')).status).toBe(404);
  });
});
