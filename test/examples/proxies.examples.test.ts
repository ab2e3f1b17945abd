import { randomUUID, type JsonWebKey } from 'node:crypto';
import { verifyRs256 } from '../support/jwt';
import { HOSTS, PASSWORDS, startExampleStack, SVC_PASSWORD, type Answer, type ExampleProxy, type ExampleStack } from './support/https-stack';

/**
 * The shipped nginx and Caddy examples, run as their own instructions say (nginx rendered by
 * examples/nginx/render.sh with a self-signed certificate, Caddy's Caddyfile unchanged with its
 * internal CA), over HTTPS, in front of the built gateway and an application that records every
 * request it receives. A person logs in on the login host and reaches the application; an API
 * client uses HTTP Basic; what the application received is checked header by header.
 */

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** The names of the cookies in a Cookie header, in order. */
function cookieNames(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(';')
    .map((c) => c.trim().split('=')[0])
    .filter((n) => n !== '');
}

describe.each<ExampleProxy>(['nginx', 'caddy'])('examples/%s over HTTPS, rendered and run as its instructions say', (proxy) => {
  let stack: ExampleStack;
  const sessions = { alice: '', carol: '' };

  /** Logs in through the login host as a browser's login page does; returns `portcullis-session=<token>`. */
  async function login(user: 'alice' | 'carol'): Promise<{ answer: Answer; cookie: string }> {
    const body = JSON.stringify({ username: user, password: PASSWORDS[user] });
    const answer = await stack.fetch(HOSTS.auth, '/api/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      body,
    });
    const setCookie = (answer.headers['set-cookie'] ?? []).find((c) => c.startsWith('portcullis-session='));
    if (answer.status !== 200 || setCookie === undefined) throw new Error(`login of ${user} through ${proxy} failed: ${answer.status} ${answer.body}`);
    return { answer, cookie: setCookie.split(';')[0] };
  }

  /** A request to a protected host with an X-Probe id; returns the answer and what the application received for it. */
  async function visit(host: string, headers: Record<string, string>, path = '/page?q=1') {
    const probe = randomUUID();
    const answer = await stack.fetch(host, path, { headers: { ...headers, 'x-probe': probe } });
    const received = stack.received(probe);
    return { answer, received, only: received.length === 1 ? received[0] : undefined };
  }

  beforeAll(async () => {
    stack = await startExampleStack(proxy);
    sessions.alice = (await login('alice')).cookie;
    sessions.carol = (await login('carol')).cookie;
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it("serves the login UI on the login host over HTTPS, with a certificate valid for the login host's name", async () => {
    const page = await stack.fetch(HOSTS.auth, '/login', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toMatch(/<html/i);
    const app = await stack.fetch(HOSTS.auth, '/api/app', { headers: { accept: 'application/json' } });
    expect(app.status).toBe(200);
  });

  it('sets the session cookie Secure on login over HTTPS', async () => {
    const { answer } = await login('alice');
    const setCookie = (answer.headers['set-cookie'] ?? []).find((c) => c.startsWith('portcullis-session='));
    expect(setCookie).toMatch(/;\s*Secure/i);
    expect(setCookie).toMatch(/;\s*HttpOnly/i);
  });

  it('redirects plain HTTP to the same URL over HTTPS', async () => {
    const answer = await stack.fetchPlain(HOSTS.app, '/page?q=1');
    expect([301, 302, 307, 308]).toContain(answer.status);
    expect(answer.headers.location).toBe(`https://${HOSTS.app}:${stack.port}/page?q=1`);
  });

  it('sends an anonymous browser to the login page on the login host, naming the page it asked for', async () => {
    const { answer, received } = await visit(HOSTS.app, { accept: 'text/html' });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.location ?? '');
    expect(location.origin).toBe(stack.appUrl);
    expect(location.pathname).toBe('/login');
    expect(location.searchParams.get('redirect_uri')).toBe(`https://${HOSTS.app}:${stack.port}/page?q=1`);
    expect(received).toEqual([]);
  });

  it('answers an API client without credentials 401 JSON, and the application sees nothing', async () => {
    const { answer, received } = await visit(HOSTS.app, { accept: 'application/json' });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 401 });
    expect(received).toEqual([]);
  });

  it("lets the cookie session through with the person's identity, and the application never sees the session cookie", async () => {
    const { answer, only } = await visit(HOSTS.app, { accept: 'text/html', cookie: `theme=dark; ${sessions.alice}; lang=en` });
    expect(answer.status).toBe(200);
    expect(only?.headers).toMatchObject({ 'remote-user': 'alice', 'remote-groups': 'admin', 'x-forwarded-proto': 'https' });
    expect(cookieNames(only?.headers.cookie)).toEqual(['theme', 'lang']);
    expect(JSON.stringify(only?.headers)).not.toContain(sessions.alice.split('=')[1]);
  });

  it('drops the Cookie header altogether when the session cookie was the only one', async () => {
    const { answer, only } = await visit(HOSTS.app, { cookie: sessions.alice });
    expect(answer.status).toBe(200);
    expect(cookieNames(only?.headers.cookie)).toEqual([]);
  });

  it('lets HTTP Basic through, and the application never sees the Basic credentials', async () => {
    const { answer, only } = await visit(HOSTS.app, { authorization: basic('alice', PASSWORDS.alice) });
    expect(answer.status).toBe(200);
    expect(only?.headers['remote-user']).toBe('alice');
    expect(only?.headers.authorization).toBeUndefined();
  });

  it('refuses wrong Basic credentials with a 401 and the application sees nothing', async () => {
    const { answer, received } = await visit(HOSTS.app, { authorization: basic('alice', 'wrong') });
    expect(answer.status).toBe(401);
    expect(received).toEqual([]);
  });

  it("passes an application's own Bearer token through next to a cookie session", async () => {
    const { answer, only } = await visit(HOSTS.app, { cookie: sessions.alice, authorization: 'Bearer app-token-123' });
    expect(answer.status).toBe(200);
    expect(only?.headers.authorization).toBe('Bearer app-token-123');
  });

  /** Creates an access token of alice's through the login host, as the account page does (issue 32). */
  async function createToken(apps?: string[]): Promise<{ token: string; id: string }> {
    const body = JSON.stringify({ name: `proxy-test-${randomUUID().slice(0, 8)}`, ...(apps === undefined ? {} : { apps }) });
    const answer = await stack.fetch(HOSTS.auth, '/api/account/tokens', {
      method: 'POST',
      headers: { cookie: sessions.alice, 'content-type': 'application/json', accept: 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      body,
    });
    if (answer.status !== 201) throw new Error(`token creation through ${proxy} failed: ${answer.status} ${answer.body}`);
    const created = JSON.parse(answer.body) as { token: string; id: string };
    return { token: created.token, id: created.id };
  }

  it('lets an access token through in either header, and the application sees neither the token nor its header', async () => {
    const { token } = await createToken();
    for (const headers of [{ authorization: `Bearer ${token}` }, { 'portcullis-token': token }] as Record<string, string>[]) {
      const { answer, only } = await visit(HOSTS.app, { accept: 'text/html', ...headers });
      expect(answer.status).toBe(200);
      expect(only?.headers['remote-user']).toBe('alice');
      expect(only?.headers.authorization).toBeUndefined();
      expect(only?.headers['portcullis-token']).toBeUndefined();
      expect(JSON.stringify(only?.headers)).not.toContain(token);
    }
  });

  it('refuses a wrong token 401 without a redirect, and a scoped token 403 outside its applications; the application sees nothing', async () => {
    const wrong = await visit(HOSTS.app, { accept: 'text/html', 'portcullis-token': `pct_${'x'.repeat(43)}` });
    expect(wrong.answer.status).toBe(401);
    expect(wrong.answer.headers.location).toBeUndefined();
    expect(wrong.received).toEqual([]);
    const { token } = await createToken(['svc']);
    const svc = await visit(HOSTS.svc, { 'portcullis-token': token });
    expect(svc.answer.status).toBe(200);
    expect(svc.only?.headers.authorization).toBe(basic('svc', SVC_PASSWORD));
    const elsewhere = await visit(HOSTS.app, { accept: 'text/html', 'portcullis-token': token });
    expect(elsewhere.answer.status).toBe(403);
    expect(elsewhere.answer.headers.location).toBeUndefined();
    expect(elsewhere.received).toEqual([]);
  });

  it('stops a token at once when it is revoked on the account page', async () => {
    const { token, id } = await createToken();
    expect((await visit(HOSTS.app, { 'portcullis-token': token })).answer.status).toBe(200);
    const body = JSON.stringify({ id });
    const revoked = await stack.fetch(HOSTS.auth, '/api/account/tokens/revoke', {
      method: 'POST',
      headers: { cookie: sessions.alice, 'content-type': 'application/json', accept: 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      body,
    });
    expect(revoked.status).toBe(200);
    const after = await visit(HOSTS.app, { 'portcullis-token': token });
    expect(after.answer.status).toBe(401);
    expect(after.received).toEqual([]);
  });

  it("gives the application the access rule's own Basic credentials (response.basicauth) instead of the person's", async () => {
    const { answer, only } = await visit(HOSTS.svc, { authorization: basic('alice', PASSWORDS.alice) });
    expect(answer.status).toBe(200);
    expect(only?.headers.authorization).toBe(basic('svc', SVC_PASSWORD));
  });

  it('sends no Remote-Groups header (never a placeholder text) for a person without groups', async () => {
    const { answer, only } = await visit(HOSTS.app, { cookie: sessions.carol });
    expect(answer.status).toBe(200);
    expect(only?.headers['remote-user']).toBe('carol');
    expect(only?.headers['remote-groups']).toBeUndefined();
    for (const value of Object.values(only?.headers ?? {})) expect(String(value)).not.toMatch(/\{[a-z.]+|<nil>/i);
  });

  it('drops the Remote-* identity headers a client sends itself (caddy: every Remote-* header)', async () => {
    const { only } = await visit(HOSTS.app, {
      cookie: sessions.carol,
      'remote-user': 'alice',
      'remote-groups': 'admin',
      'remote-email': 'alice@example.test',
      'remote-anything': 'x',
    });
    expect(only?.headers['remote-user']).toBe('carol');
    expect(only?.headers['remote-groups']).toBeUndefined();
    expect(only?.headers['remote-email']).toBe('carol@example.test');
    // Caddy deletes by wildcard (request_header -Remote-*); nginx can only overwrite headers it names.
    expect(only?.headers['remote-anything']).toBe(proxy === 'caddy' ? undefined : 'x');
  });

  it('never lets a client send its own Remote-Assertion (the signed identity assertion) to the application', async () => {
    const forged = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJyb290In0.';
    const { answer, only } = await visit(HOSTS.app, { cookie: sessions.carol, 'remote-assertion': forged });
    expect(answer.status).toBe(200);
    expect(only?.headers['remote-user']).toBe('carol');
    // This application's rule asks for none: the header is absent, not the client's.
    expect(only?.headers['remote-assertion']).toBeUndefined();
  });

  it('passes the signed identity assertion to an application whose rule asks for one (response.assertion), replacing a forged one', async () => {
    const forged = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJyb290In0.';
    const headers = { authorization: basic('alice', PASSWORDS.alice), 'remote-assertion': forged };
    const visited = await visit(HOSTS.svc, headers);
    expect(visited.answer.status).toBe(200);
    const token = String(visited.only?.headers['remote-assertion'] ?? '');
    expect(token).not.toBe(forged);
    const [header, claims] = token.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(claims).toMatchObject({ iss: stack.appUrl, aud: HOSTS.svc, preferred_username: 'alice' });
  });

  it("passes a session's amr, acr and auth_time in an assertion the application verifies against the JWKS; HTTP Basic proves none", async () => {
    const jwks = await stack.fetch(HOSTS.auth, '/oidc/jwks', { headers: { accept: 'application/json' } });
    expect(jwks.status).toBe(200);
    const keys = JSON.parse(jwks.body) as { keys: JsonWebKey[] };
    const session = await visit(HOSTS.svc, { cookie: sessions.alice });
    expect(session.answer.status).toBe(200);
    const { claims } = verifyRs256(String(session.only?.headers['remote-assertion'] ?? ''), keys);
    expect(claims).toMatchObject({ iss: stack.appUrl, aud: HOSTS.svc, preferred_username: 'alice', amr: ['pwd'], acr: 'sfa' });
    // The login of beforeAll: at most a few minutes old, never in the future.
    const now = Math.floor(Date.now() / 1000);
    expect(claims.auth_time).toBeLessThanOrEqual(now);
    expect(claims.auth_time).toBeGreaterThan(now - 600);
    const basicAuth = await visit(HOSTS.svc, { authorization: basic('alice', PASSWORDS.alice) });
    const basicClaims = verifyRs256(String(basicAuth.only?.headers['remote-assertion'] ?? ''), keys).claims;
    expect(basicClaims).toMatchObject({ preferred_username: 'alice' });
    expect(basicClaims).not.toHaveProperty('amr');
    expect(basicClaims).not.toHaveProperty('auth_time');
  });

  it('keeps forward auth internal: /api/auth/* and the probes are 404 on the login host', async () => {
    for (const path of ['/api/auth/nginx', '/api/auth/caddy', '/api/ready', '/api/health']) {
      const answer = await stack.fetch(HOSTS.auth, path, { headers: { cookie: sessions.alice, accept: 'application/json' } });
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(answer.headers['remote-user']).toBeUndefined();
    }
  });
});

/** Alice's `portcullis-session=<token>`, logged in through the stack's login host. */
async function aliceSession(stack: ExampleStack): Promise<string> {
  const body = JSON.stringify({ username: 'alice', password: PASSWORDS.alice });
  const login = await stack.fetch(HOSTS.auth, '/api/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    body,
  });
  return ((login.headers['set-cookie'] ?? []).find((c) => c.startsWith('portcullis-session=')) ?? '').split(';')[0];
}

describe('the forward-auth hop of the nginx example (issue 20: connection reuse)', () => {
  it('asks forward auth with HEAD over one reused connection, not one per request', async () => {
    const stack = await startExampleStack('nginx');
    try {
      const cookie = await aliceSession(stack);
      const before = { connections: stack.tap.connections, requests: stack.tap.methods.length };
      for (let i = 0; i < 30; i += 1) {
        const answer = await stack.fetch(HOSTS.app, `/n/${i}`, { headers: { cookie } });
        expect(answer.status).toBe(200);
      }
      const asked = stack.tap.methods.slice(before.requests);
      expect(asked).toHaveLength(30);
      expect(new Set(asked)).toEqual(new Set(['HEAD']));
      // One worker, one request at a time: the pool's first connection serves them all.
      expect(stack.tap.connections - before.connections).toBeLessThanOrEqual(1);
    } finally {
      await stack.stop();
    }
  }, 60_000);
});

describe('the forward-auth hop of the Caddy example (issue 20: connection reuse)', () => {
  it('keeps one connection to forward auth for allowed requests, cookie and Basic (it asks for the 2xx without a body)', async () => {
    const stack = await startExampleStack('caddy');
    try {
      const cookie = await aliceSession(stack);
      const before = { connections: stack.tap.connections, requests: stack.tap.methods.length };
      for (let i = 0; i < 30; i += 1) {
        const headers: Record<string, string> = i % 2 === 0 ? { cookie } : { authorization: basic('alice', PASSWORDS.alice) };
        const answer = await stack.fetch(HOSTS.app, `/n/${i}`, { headers });
        expect(answer.status).toBe(200);
      }
      expect(stack.tap.methods.slice(before.requests)).toHaveLength(30);
      // One request at a time: Caddy's pool keeps the first connection for all of them (a 2xx with a
      // body would have cost one connection each).
      expect(stack.tap.connections - before.connections).toBeLessThanOrEqual(1);
    } finally {
      await stack.stop();
    }
  }, 60_000);
});
