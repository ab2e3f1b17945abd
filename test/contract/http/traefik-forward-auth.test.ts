import { hashOf } from '../../support/credentials';
import { cookieFrom, startGateway, type RunningGateway } from '../../support/server';

/**
 * Traefik cannot be installed on this machine, so its ForwardAuth contract is checked here with
 * the headers Traefik sends (X-Forwarded-Method/-Proto/-Host/-Uri/-For, the client's Cookie and
 * Authorization) and the answers examples/traefik relies on: a 2xx whose Remote-* headers
 * `authResponseHeaders` copies, or any other answer that Traefik hands to the client unchanged.
 */
describe('GET /api/auth/traefik as Traefik ForwardAuth calls it', () => {
  let gw: RunningGateway;
  let session: string;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')}` });
    const res = await fetch(`${gw.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'alice', password: 'alice-pw' }),
    });
    session = cookieFrom(res, 'portcullis-session')?.value ?? '';
  });
  afterAll(() => gw.close());

  const traefikHeaders = (extra: Record<string, string>): Record<string, string> => ({
    'x-forwarded-method': 'GET',
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'whoami.example.test',
    'x-forwarded-uri': '/reports?year=2026',
    'x-forwarded-for': '203.0.113.7',
    ...extra,
  });

  it('redirects a browser without a session to the login page, with the original URL as redirect_uri', async () => {
    const res = await fetch(`${gw.url}/api/auth/traefik`, { redirect: 'manual', headers: traefikHeaders({ accept: 'text/html,application/xhtml+xml' }) });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(
      `https://auth.example.test/login?redirect_uri=${encodeURIComponent('https://whoami.example.test/reports?year=2026')}`,
    );
  });

  it('answers an API client without credentials 401 JSON, never a redirect', async () => {
    const res = await fetch(`${gw.url}/api/auth/traefik`, { redirect: 'manual', headers: traefikHeaders({ accept: 'application/json' }) });
    expect(res.status).toBe(401);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toEqual({ status: 401, code: 'unauthorized', message: 'Unauthorized' });
  });

  it('answers a request with a session 200 and the Remote-* headers authResponseHeaders names', async () => {
    const res = await fetch(`${gw.url}/api/auth/traefik`, { headers: traefikHeaders({ accept: 'text/html', cookie: `portcullis-session=${session}` }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('remote-user')).toBe('alice');
    expect(res.headers.get('remote-email')).toBe('alice@example.test');
    expect(res.headers.get('remote-name')).not.toBeNull();
  });

  it('answers HTTP Basic credentials 200 with Remote-User, for headless clients', async () => {
    const res = await fetch(`${gw.url}/api/auth/traefik`, {
      headers: traefikHeaders({ authorization: `Basic ${Buffer.from('alice:alice-pw').toString('base64')}` }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('remote-user')).toBe('alice');
  });
});
