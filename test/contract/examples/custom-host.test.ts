import { hashOf, TEST_SECRET } from '../../support/credentials';
import { freePort } from '../../support/net';
import { built, runNode, type Child } from '../../support/process';

/** Runs examples/custom-host as its own process (built to dist/) and drives a login and a forward-auth check through it. */
describe('examples/custom-host: a plain node:http host over the use cases', () => {
  let host: Child;
  let url: string;
  beforeAll(async () => {
    const port = await freePort();
    host = runNode(built('examples/custom-host/server.js'), [], {
      APP_URL: 'https://auth.example.test',
      SECRET: TEST_SECRET,
      USERS: `alice:${hashOf('alice-pw')}`,
      PORT: String(port),
      ADDRESS: '127.0.0.1',
      LOG_LEVEL: 'silent',
    });
    url = (await host.waitFor(/custom host listening on (http:\/\/\S+)/))[1];
  }, 30_000);
  afterAll(() => host.stop());

  const login = (username: string, password: string): Promise<Response> =>
    fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  const auth = (headers: Record<string, string>): Promise<Response> =>
    fetch(`${url}/auth`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test', 'x-forwarded-uri': '/', ...headers } });

  it('logs in with the right password and the cookie then passes forward auth with Remote-User', async () => {
    const res = await login('alice', 'alice-pw');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 200, message: 'Logged in', totpPending: 'false' });
    const setCookie = res.headers.getSetCookie()[0];
    expect(setCookie).toMatch(/; Domain=example\.test; Secure$/);
    const cookie = setCookie.split(';')[0];
    const check = await auth({ cookie });
    expect(check.status).toBe(200);
    expect(check.headers.get('remote-user')).toBe('alice');
  });

  it('answers a wrong password with 401 and forward auth without a cookie with 401 and the login URL', async () => {
    expect((await login('alice', 'nope')).status).toBe(401);
    const check = await auth({});
    expect(check.status).toBe(401);
    expect(await check.json()).toMatchObject({ login: 'https://auth.example.test/login' });
  });

  it('accepts HTTP Basic at forward auth too, since the use case handles it', async () => {
    const check = await auth({ authorization: `Basic ${Buffer.from('alice:alice-pw').toString('base64')}` });
    expect(check.status).toBe(200);
  });

  it('answers bad input with 400 and unknown routes with 404, without crashing', async () => {
    expect((await fetch(`${url}/login`, { method: 'POST', body: '{nope' })).status).toBe(400);
    expect((await auth({ 'x-forwarded-host': 'user@evil' })).status).toBe(400);
    expect((await fetch(`${url}/elsewhere`)).status).toBe(404);
    expect((await fetch(`${url}/login`, { method: 'POST', body: JSON.stringify({ username: 'alice', password: 'alice-pw' }) })).status).toBe(200);
  });
});
