import { hashOf } from '../../support/credentials';
import { exchange, rawRequest as request } from '../../support/raw-exchange';
import { startGateway, type RunningGateway } from '../../support/server';

/**
 * nginx's `auth_request` never reads the body of the auth answer, so it can only keep a pooled
 * connection when the answer has none: the shipped nginx template asks with `proxy_method HEAD`
 * (the original method travels in X-Original-Method). HEAD must therefore be answered exactly like
 * GET, byte for byte, apart from the body: same status line, same headers in the same order, the
 * same Content-Length (RFC 9110 §9.3.2: the length the GET body would have), and no body bytes,
 * or the next answer on the kept-alive connection would be read from the wrong place.
 */

describe('HEAD on /api/auth/* (what the nginx template asks with)', () => {
  let gw: RunningGateway;
  let port: number;
  let cookie: string;
  const basic = `Basic ${Buffer.from('alice:pw').toString('base64')}`;
  const original = { 'X-Original-URL': 'https://app.example.test/page?q=1', 'X-Original-Method': 'POST' };
  const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'app.example.test', 'X-Forwarded-Uri': '/page?q=1', 'X-Forwarded-Method': 'GET' };

  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('pw')}` });
    port = Number(new URL(gw.url).port);
    const login = await fetch(`${gw.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'pw' }),
    });
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  });
  afterAll(() => gw.close());

  const cases: ReadonlyArray<[string, string, () => Record<string, string>, number]> = [
    ['nginx, a cookie session (200 with identity headers)', '/api/auth/nginx', () => ({ ...original, Cookie: cookie }), 200],
    ['nginx, HTTP Basic (200)', '/api/auth/nginx', () => ({ ...original, Authorization: basic }), 200],
    ['nginx, a browser without a session (401 with X-Portcullis-Location)', '/api/auth/nginx', () => ({ ...original, Accept: 'text/html' }), 401],
    ['nginx, an API client without credentials (401)', '/api/auth/nginx', () => ({ ...original, Accept: 'application/json' }), 401],
    [
      'nginx, a wrong Basic password (401)',
      '/api/auth/nginx',
      () => ({ ...original, Authorization: `Basic ${Buffer.from('alice:no').toString('base64')}` }),
      401,
    ],
    ['caddy, a browser without a session (302 to the login page)', '/api/auth/caddy', () => ({ ...forwarded, Accept: 'text/html' }), 302],
    ['traefik, a cookie session (200)', '/api/auth/traefik', () => ({ ...forwarded, Cookie: cookie }), 200],
    ['nginx without X-Original-URL (400)', '/api/auth/nginx', () => ({ Accept: 'application/json' }), 400],
    ['an unknown proxy (400)', '/api/auth/apache', () => ({ ...forwarded }), 400],
  ];

  it.each(cases)('%s: HEAD is answered byte for byte like GET, without the body, on one kept-alive connection', async (_name, path, headers, status) => {
    const [get, head, again] = await exchange(port, [request('GET', path, headers()), request('HEAD', path, headers()), request('GET', path, headers())]);
    expect(get.head.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${get.head.split('\r\n')[0].slice(13)}`);
    expect(Number(/\r\ncontent-length: (\d+)/i.exec(get.head)?.[1])).toBe(get.body.length);
    expect(get.body.length).toBeGreaterThan(0);
    expect(head.head).toBe(get.head);
    expect(head.body.length).toBe(0);
    // The connection is still in step: the answer after the HEAD is the GET answer again.
    expect(again.head).toBe(get.head);
    expect(again.body.equals(get.body)).toBe(true);
  });

  it('reads the method from X-Original-Method, not from the HEAD the proxy asks with', async () => {
    const bad = { ...original, 'X-Original-Method': 'P O S T', Accept: 'application/json' };
    const [get, head] = await exchange(port, [request('GET', '/api/auth/nginx', bad), request('HEAD', '/api/auth/nginx', bad)]);
    expect(get.head).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(get.body.toString())).toMatchObject({ code: 'bad_forwarded_headers', message: 'Malformed forwarded header X-Original-Method' });
    expect(head.head).toBe(get.head);
  });
});
