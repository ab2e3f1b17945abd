import { diagnose } from '../../../src/cli/doctor/diagnose';
import type { Finding } from '../../../src/cli/doctor/findings';
import type { ProbeAnswer, ProbeRequest, ProbeTransport } from '../../../src/cli/doctor/probe-transport';
import { addressFor, isComplete, parseResponse } from '../../../src/cli/doctor/socket-probe-transport';

const APP = 'https://app.example.com/';
const TOKEN = `pct_${'t'.repeat(43)}`;
const COOKIE = 'portcullis-session=s3ss10n; Path=/; Max-Age=3600; Domain=example.com; HttpOnly; SameSite=Lax; Secure';

function answer(status: number, headers: Record<string, string> = {}, body = ''): ProbeAnswer {
  return { kind: 'answer', status, headers: new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), [v]])), body };
}

function header(req: ProbeRequest, name: string): string | undefined {
  return req.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
}

/** Overrides one behaviour of the site; undefined falls through to the correctly wired site. */
type Override = (req: ProbeRequest) => ProbeAnswer | undefined;

/**
 * A correctly wired site, answering like nginx in front of Portcullis: unknown hosts closed,
 * anonymous visits sent to the login page for the URL asked, client headers ignored, /api/auth/
 * not published, a session cookie that is Secure, HttpOnly, Lax and shared with the domain.
 */
function site(
  override: Override = () => undefined,
  loginAnswer: ProbeAnswer = answer(200, { 'set-cookie': COOKIE }, '{"totpPending":"false"}'),
): ProbeTransport {
  return async (req) => {
    const custom = override(req);
    if (custom !== undefined) return custom;
    const host = header(req, 'Host') ?? '';
    if (req.hostname === 'auth.example.com') {
      if (req.method === 'POST' && req.target === '/api/login') return loginAnswer;
      if (req.method === 'POST' && req.target === '/api/account/tokens') return answer(201, {}, JSON.stringify({ token: TOKEN, id: 't1' }));
      if (req.method === 'POST' && req.target === '/api/account/tokens/revoke') return answer(200, {}, '{"code":"token_revoked"}');
      // Everything but forward auth reaches the gateway, which names each answer.
      if (!req.target.startsWith('/api/auth')) return answer(req.target === '/api/passkeys/login/options' ? 405 : 200, { 'x-request-id': 'r1' });
      return answer(404);
    }
    const absolute = /^https?:\/\/([^/]+)(.*)$/.exec(req.target);
    const routedHost = absolute === null ? host : absolute[1];
    const path = absolute === null ? req.target : absolute[2] || '/';
    if (routedHost !== 'app.example.com') return { kind: 'closed' };
    if ((header(req, 'Cookie') ?? '').includes('portcullis-session=s3ss10n')) return answer(200, {}, '<p>the app</p>');
    if (header(req, 'Portcullis-Token') === TOKEN || header(req, 'Authorization') === `Bearer ${TOKEN}`) return answer(200, {}, '<p>the app</p>');
    return answer(302, { location: `https://auth.example.com/login?redirect_uri=${encodeURIComponent(`https://app.example.com${path}`)}` });
  };
}

async function run(transport: ProbeTransport, login = true, publicPath?: string): Promise<Finding[]> {
  const findings: Finding[] = [];
  await diagnose({ url: new URL(APP), marker: 'feedc0de', login: login ? { username: 'alice', password: 'pw' } : undefined, publicPath }, transport, (f) =>
    findings.push(f),
  );
  return findings;
}

function verdictOf(findings: Finding[], check: string): string[] {
  return findings.filter((f) => f.check === check).map((f) => f.verdict);
}

describe('portcullis doctor: what it concludes from the answers', () => {
  it('passes every check of a correctly wired site', async () => {
    const findings = await run(site());
    expect(findings.filter((f) => f.verdict !== 'PASS')).toEqual([]);
    expect(findings.map((f) => f.check)).toEqual([
      'baseline',
      'x-forwarded-host',
      'x-forwarded-uri',
      'x-forwarded-proto',
      'x-original-url',
      'remote-headers',
      'ambiguous-paths',
      'unknown-host',
      'absolute-form-unknown',
      'absolute-form',
      'login',
      'cookie-secure',
      'cookie-httponly',
      'cookie-samesite',
      'cookie-domain',
      'auth-api-login-host',
      'auth-api-app-host',
      'login-host-routes',
      'session',
      'upstream-remote-headers',
      'upstream-x-forwarded-host',
      'upstream-x-forwarded-uri',
      'upstream-x-original-url',
      'upstream-access-token',
      'upstream-access-token',
    ]);
  });

  it('fails when an access token reaches the app, and skips the check with tokens off (issue 32)', async () => {
    const echoes = site((req) =>
      req.hostname === 'app.example.com' && header(req, 'Portcullis-Token') === TOKEN ? answer(200, {}, `<p>you sent ${TOKEN}</p>`) : undefined,
    );
    const findings = (await run(echoes)).filter((f) => f.check === 'upstream-access-token');
    expect(findings.map((f) => f.verdict)).toEqual(['PASS', 'FAIL']);
    expect(findings[1].message).toContain('Portcullis-Token reaches the app');
    expect(findings[1].message).not.toContain(TOKEN);
    const off = site((req) => (req.target === '/api/account/tokens' ? answer(404) : undefined));
    expect(verdictOf(await run(off), 'upstream-access-token')).toEqual(['SKIP']);
  });

  it('names the paths of the login host that the proxy answers itself, and the shipped file to fix', async () => {
    const byHand = site((req) =>
      req.hostname === 'auth.example.com' && /^\/(api\/(account|passkeys)|account)/.test(req.target) ? answer(404, { server: 'nginx/1.22.1' }) : undefined,
    );
    const finding = (await run(byHand)).find((f) => f.check === 'login-host-routes');
    expect(finding).toEqual(expect.objectContaining({ verdict: 'FAIL', message: expect.stringContaining('/account (404); /api/account (404)') }));
    expect(finding?.message).toContain('/api/passkeys (404)');
    expect(finding?.message).not.toContain('/enrol');
    expect(finding?.fix).toContain('examples/nginx/auth.conf.template');
    const caddy = site((req) => (req.hostname === 'auth.example.com' && req.target === '/oidc/jwks' ? answer(404, { server: 'Caddy' }) : undefined));
    expect((await run(caddy, false)).find((f) => f.check === 'login-host-routes')?.fix).toContain('examples/caddy/Caddyfile');
  });

  it('skips the session checks without --as, and says how to run them', async () => {
    const findings = await run(site(), false);
    expect(verdictOf(findings, 'session')).toEqual(['SKIP']);
    expect(findings.some((f) => f.check.startsWith('upstream-') || f.check.startsWith('cookie-'))).toBe(false);
    expect(findings.filter((f) => f.verdict === 'FAIL' || f.verdict === 'WARN')).toEqual([]);
  });

  it('stops after the baseline when the URL is not sent to a login page', async () => {
    const findings = await run(site(() => answer(401, { 'content-type': 'application/json' }, '{"status":401}')));
    expect(findings).toEqual([
      expect.objectContaining({ verdict: 'FAIL', check: 'baseline', message: expect.stringContaining('got 401, not a redirect to the login page') }),
    ]);
  });

  it('on an untrusted TLS certificate, says how to trust its CA (NODE_EXTRA_CA_CERTS), not how to resolve a name', async () => {
    const untrusted: ProbeAnswer = {
      kind: 'unreachable',
      reason: 'the TLS certificate of app.example.com:443 is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
      failure: 'untrusted_certificate',
    };
    const [finding, ...more] = await run(site(() => untrusted));
    expect(more).toEqual([]);
    expect(finding).toMatchObject({ verdict: 'FAIL', check: 'baseline' });
    expect(finding.fix).toContain('NODE_EXTRA_CA_CERTS=');
    expect(finding.fix).toContain('--insecure');
    expect(finding.fix).not.toMatch(/resolve/);
    const [unresolved] = await run(site(() => ({ kind: 'unreachable', reason: 'app.example.com does not resolve' })));
    expect(unresolved.fix).toContain('--resolve');
  });

  it('names the URL Portcullis decided on when a client header reaches the decision', async () => {
    const transport = site((req) => {
      const spoofed = header(req, 'X-Forwarded-Host');
      if (spoofed === undefined || req.hostname !== 'app.example.com' || header(req, 'Cookie') !== undefined) return undefined;
      return answer(302, { location: `https://auth.example.com/login?redirect_uri=${encodeURIComponent(`https://${spoofed}/`)}` });
    });
    const findings = await run(transport);
    const finding = findings.find((f) => f.check === 'x-forwarded-host');
    expect(finding).toEqual(
      expect.objectContaining({
        verdict: 'FAIL',
        message: expect.stringContaining('decided on https://portcullis-doctor-feedc0de.example.com/ instead of https://app.example.com/'),
      }),
    );
    expect(finding?.fix).toContain('X-Forwarded-Host $host');
  });

  it('fails a spoofed Remote-User that lets an anonymous request through', async () => {
    const findings = await run(site((req) => (header(req, 'Remote-User') === 'admin' ? answer(200, {}, 'admin area') : undefined)));
    expect(verdictOf(findings, 'remote-headers')).toEqual(['FAIL']);
  });

  it("counts a 400 or nginx's 500 for an ambiguous path as a refusal, a 404 as worth a look, a 200 as a hole", async () => {
    const ambiguous =
      (status: number): Override =>
      (req) =>
        /\.\.|%2e/i.test(req.target) && header(req, 'Cookie') === undefined ? answer(status) : undefined;
    expect(verdictOf(await run(site(ambiguous(400))), 'ambiguous-paths')).toEqual(['PASS']);
    expect(verdictOf(await run(site(ambiguous(500))), 'ambiguous-paths')).toEqual(['PASS']);
    expect(verdictOf(await run(site(ambiguous(404))), 'ambiguous-paths')).toEqual(['WARN']);
    const served = await run(site(ambiguous(200)), true, '/public/');
    expect(verdictOf(served, 'ambiguous-paths')).toEqual(['FAIL']);
    expect(served.find((f) => f.check === 'ambiguous-paths')?.message).toContain('/public/..;/ → 200');
  });

  it('aims the ambiguous paths at --public-path in both directions', async () => {
    const targets: string[] = [];
    const record: Override = (req) => {
      if (/\.\.|%2e/i.test(req.target)) targets.push(req.target);
      return undefined;
    };
    await run(site(record), false, '/public/x');
    expect(targets.sort()).toEqual(
      [
        '/portcullis-doctor-feedc0de/..;/public/x',
        '/portcullis-doctor-feedc0de/%2e%2e/public/x',
        '/portcullis-doctor-feedc0de/..%2fpublic/x',
        '/portcullis-doctor-feedc0de/..%5cpublic/x',
        '/public/..;/',
        '/public/%2e%2e/',
        '/public/..%2f',
        '/public/..%5c',
      ].sort(),
    );
  });

  it('warns about an empty 200 for an unknown host and fails a page served for it', async () => {
    const unknown =
      (body: string): Override =>
      (req) =>
        (header(req, 'Host') ?? '').endsWith('.invalid') ? answer(200, {}, body) : undefined;
    expect(verdictOf(await run(site(unknown(''))), 'unknown-host')).toEqual(['WARN']);
    expect(verdictOf(await run(site(unknown('<h1>Welcome to nginx</h1>'))), 'unknown-host')).toEqual(['FAIL']);
  });

  it('fails a host-only cookie on the login host, which the app never receives, and stops there', async () => {
    const findings = await run(site(undefined, answer(200, { 'set-cookie': 'portcullis-session=s3ss10n; Path=/; HttpOnly; SameSite=Lax; Secure' }, '{}')));
    expect(findings.find((f) => f.check === 'cookie-domain')).toEqual(
      expect.objectContaining({ verdict: 'FAIL', message: expect.stringContaining('host-only on auth.example.com') }),
    );
    expect(findings.some((f) => f.check.startsWith('upstream-'))).toBe(false);
  });

  it('fails a cookie without HttpOnly or Secure and warns about SameSite=None', async () => {
    const findings = await run(site(undefined, answer(200, { 'set-cookie': 'portcullis-session=s3ss10n; Path=/; Domain=example.com; SameSite=None' }, '{}')));
    expect(verdictOf(findings, 'cookie-httponly')).toEqual(['FAIL']);
    expect(verdictOf(findings, 'cookie-secure')).toEqual(['FAIL']);
    expect(verdictOf(findings, 'cookie-samesite')).toEqual(['WARN']);
  });

  it.each([
    ['http://auth.example.com/login', 'plain http'],
    ['https://login.evil.example/login', "does not send alice's password to another domain"],
  ])('never sends the password to a login page at %s', async (loginPage, why) => {
    const sent: ProbeRequest[] = [];
    const transport = site((req) => {
      sent.push(req);
      if (req.hostname === 'app.example.com' && header(req, 'Cookie') === undefined && !(header(req, 'Host') ?? '').endsWith('.invalid')) {
        return answer(302, { location: `${loginPage}?redirect_uri=${encodeURIComponent(`https://app.example.com${req.target}`)}` });
      }
      return undefined;
    });
    const findings = await run(transport);
    expect(findings.find((f) => f.check === 'login')).toEqual(expect.objectContaining({ verdict: 'FAIL', message: expect.stringContaining(why) }));
    expect(sent.filter((r) => r.method === 'POST' || (r.body ?? '').includes('pw'))).toEqual([]);
  });

  it('skips the checks behind the login for an account with TOTP', async () => {
    const findings = await run(site(undefined, answer(200, { 'set-cookie': COOKIE }, '{"totpPending":"true"}')));
    expect(findings.find((f) => f.check === 'session')).toEqual(expect.objectContaining({ verdict: 'SKIP', message: expect.stringContaining('has TOTP') }));
  });

  it('recognises the forward-auth endpoint answering through the app host by its own headers', async () => {
    const transport = site((req) =>
      req.hostname === 'app.example.com' && req.target === '/api/auth/nginx'
        ? answer(401, { 'x-portcullis-location': 'https://auth.example.com/login' })
        : undefined,
    );
    const findings = await run(transport);
    expect(findings.find((f) => f.check === 'auth-api-app-host')).toEqual(
      expect.objectContaining({ verdict: 'FAIL', message: expect.stringContaining('GET /api/auth/nginx → 401 with an X-Portcullis-Location header') }),
    );
  });

  it("does not mistake the app protecting /api/auth/ for the endpoint when the login page shares the app's origin", async () => {
    const transport = site((req) => {
      if (req.hostname !== 'app.example.com') return undefined;
      if (req.method === 'POST' && req.target === '/api/login') return answer(200, { 'set-cookie': COOKIE }, '{"totpPending":"false"}');
      if (req.method === 'POST' && req.target === '/api/account/tokens') return answer(201, {}, JSON.stringify({ token: TOKEN, id: 't1' }));
      // The login's own pages and API on this origin reach the gateway.
      if (/^\/(account|enrol|api\/(account|passkeys|handoff)|oidc\/|\.well-known\/)/.test(req.target)) return answer(200, { 'x-request-id': 'r2' });
      const credentials = (header(req, 'Cookie') ?? '') !== '' || header(req, 'Portcullis-Token') !== undefined || header(req, 'Authorization') !== undefined;
      if (credentials || (header(req, 'Host') ?? '').endsWith('.invalid') || /^https?:/.test(req.target)) return undefined;
      return answer(302, { location: `https://app.example.com/login?redirect_uri=${encodeURIComponent(`https://app.example.com${req.target}`)}` });
    });
    const findings = await run(transport);
    expect(findings.filter((f) => f.check.startsWith('auth-api-'))).toEqual([expect.objectContaining({ check: 'auth-api-app-host', verdict: 'PASS' })]);
    expect(findings.filter((f) => f.verdict !== 'PASS')).toEqual([]);
  });

  it('fails a client header that the app repeats back', async () => {
    const transport = site((req) => {
      const value = header(req, 'X-Original-URL');
      return value !== undefined && header(req, 'Cookie') !== undefined ? answer(200, {}, `routed by ${value}`) : undefined;
    });
    expect(verdictOf(await run(transport), 'upstream-x-original-url')).toEqual(['FAIL']);
  });
});

describe("the socket transport's parts", () => {
  it('reads a chunked answer with repeated headers', () => {
    const raw = Buffer.from(
      'HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n',
    );
    const parsed = parseResponse(raw);
    expect(parsed).toEqual({ kind: 'answer', status: 200, headers: expect.any(Map), body: 'hello world' });
    expect(parsed?.kind === 'answer' && parsed.headers.get('set-cookie')).toEqual(['a=1', 'b=2']);
  });

  it('knows when an answer is whole, so a server that keeps the connection open costs no timeout', () => {
    expect(isComplete(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel'), 'GET')).toBe(false);
    expect(isComplete(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello'), 'GET')).toBe(true);
    expect(isComplete(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n'), 'GET')).toBe(false);
    expect(isComplete(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n'), 'GET')).toBe(true);
    expect(isComplete(Buffer.from('HTTP/1.1 302 Found\r\nLocation: /login\r\nContent-Length: 0\r\n\r\n'), 'GET')).toBe(true);
    expect(isComplete(Buffer.from('HTTP/1.1 204 No Content\r\n\r\n'), 'GET')).toBe(true);
    expect(isComplete(Buffer.from('HTTP/1.1 200 OK\r\n\r\nuntil the end'), 'GET')).toBe(false);
  });

  it('refuses what is not HTTP/1.x', () => {
    expect(parseResponse(Buffer.from('SSH-2.0-OpenSSH\r\n\r\n'))).toBeNull();
    expect(parseResponse(Buffer.from('HTTP/1.1 200 OK\r\nno end of head'))).toBeNull();
  });

  it('maps host names given with --resolve, wildcards included, and leaves the others to DNS', () => {
    const resolve = new Map([
      ['app.example.com', '10.0.0.1'],
      ['*.example.test', '127.0.0.1'],
    ]);
    expect(addressFor('APP.example.com', resolve)).toBe('10.0.0.1');
    expect(addressFor('auth.example.test', resolve)).toBe('127.0.0.1');
    expect(addressFor('example.test', resolve)).toBe('example.test');
    expect(addressFor('[::1]', resolve)).toBe('::1');
  });
});
