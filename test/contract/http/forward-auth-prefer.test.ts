import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashOf } from '../../support/credentials';
import { loginCookie } from '../../support/http';
import { tempDataDir } from '../../support/data-dir';
import { exchange, rawRequest, type Exchange } from '../../support/raw-exchange';
import { startGatewayWithUsersFile, type RunningGateway } from '../../support/server';

/**
 * Caddy's `handle_response` closes an allowed answer without reading its body, and Go's HTTP client
 * then throws the connection away: every allowed request opened a new connection to forward auth.
 * The shipped Caddyfile therefore asks with `Prefer: return=minimal` (RFC 7240), and an allowed
 * answer to such a request comes without a body, so the connection stays pooled. Everything else
 * stays as the spec has it: without the header the 200 carries its envelope, and a refusal (which
 * Caddy hands to the client) keeps its body whatever the header says.
 */

/** The header lines of an answer as name → value, lower-case names, Date left out. */
function headersOf(answer: Exchange): Map<string, string> {
  const lines = answer.head.split('\r\n').slice(1);
  return new Map(lines.filter((l) => !/^date:/i.test(l)).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
}

describe('Prefer: return=minimal on /api/auth/* (what the shipped Caddyfile asks with)', () => {
  let gw: RunningGateway;
  let port: number;
  let cookie: string;
  let data: { dir: string; remove(): void };
  const basic = `Basic ${Buffer.from('alice:pw').toString('base64')}`;
  const forwarded = (host = 'app.example.test') => ({
    'X-Forwarded-Proto': 'https',
    'X-Forwarded-Host': host,
    'X-Forwarded-Uri': '/page?q=1',
    'X-Forwarded-Method': 'GET',
  });

  beforeAll(async () => {
    data = tempDataDir('portcullis-prefer');
    const rules = join(data.dir, 'access.yaml');
    writeFileSync(
      rules,
      [
        'default_policy: allow_authenticated',
        'apps:',
        '  wiki:',
        '    domain: [wiki.example.test]',
        '    response:',
        '      headers: { X-Team: wiki }',
        '',
      ].join('\n'),
    );
    gw = await startGatewayWithUsersFile(
      `users:\n  - username: alice\n    password: "${hashOf('pw')}"\n    email: alice@example.test\n    groups: [admins]\n`,
      {
        ACCESS_CONFIG: rules,
      },
    );
    port = Number(new URL(gw.url).port);
    cookie = await loginCookie(gw, 'alice', 'pw');
  });
  afterAll(async () => {
    await gw.close();
    data.remove();
  });

  const allowed: ReadonlyArray<[string, string, () => Record<string, string>]> = [
    ['caddy, a cookie session', '/api/auth/caddy', () => ({ ...forwarded(), Cookie: cookie })],
    ['caddy, HTTP Basic', '/api/auth/caddy', () => ({ ...forwarded(), Authorization: basic })],
    ['caddy, an application whose rule adds a header (X-Team)', '/api/auth/caddy', () => ({ ...forwarded('wiki.example.test'), Cookie: cookie })],
    ['traefik, a cookie session', '/api/auth/traefik', () => ({ ...forwarded(), Cookie: cookie })],
    ['nginx, HTTP Basic', '/api/auth/nginx', () => ({ 'X-Original-URL': 'https://app.example.test/page', 'X-Original-Method': 'GET', Authorization: basic })],
  ];

  it.each(allowed)('%s: the 200 comes without a body, with the same identity headers, and the connection stays in step', async (_name, path, headers) => {
    const [full, minimal, again] = await exchange(port, [
      rawRequest('GET', path, headers()),
      rawRequest('GET', path, { ...headers(), Prefer: 'return=minimal' }),
      rawRequest('GET', path, headers()),
    ]);
    expect(full.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(full.body.toString())).toEqual({ status: 200, code: 'authenticated', message: 'Authenticated' });

    expect(minimal.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(minimal.body.length).toBe(0);
    const got = headersOf(minimal);
    expect(got.get('content-length')).toBe('0');
    expect(got.get('preference-applied')).toBe('return=minimal');
    expect(got.has('content-type')).toBe(false);
    expect(got.get('cache-control')).toBe('no-store');
    // Every header the proxy copies is there, with the same value as in the full answer.
    const expected = headersOf(full);
    for (const name of ['content-type', 'content-length', 'x-content-type-options']) expected.delete(name);
    expected.set('content-length', '0');
    expected.set('preference-applied', 'return=minimal');
    expect(Object.fromEntries(got)).toEqual(Object.fromEntries(expected));
    expect(got.get('remote-user')).toBe('alice');
    expect(again.head).toBe(full.head);
    expect(again.body.equals(full.body)).toBe(true);
  });

  it('adds the rule headers of the application to the minimal answer as to the full one', async () => {
    const [minimal] = await exchange(port, [
      rawRequest('GET', '/api/auth/caddy', { ...forwarded('wiki.example.test'), Cookie: cookie, Prefer: 'return=minimal' }),
    ]);
    expect(headersOf(minimal).get('x-team')).toBe('wiki');
    expect(headersOf(minimal).get('remote-groups')).toBe('admins');
  });

  const refused: ReadonlyArray<[string, () => Record<string, string>, number]> = [
    ['a browser without a session (302 to the login page)', () => ({ ...forwarded(), Accept: 'text/html' }), 302],
    ['an API client without credentials (401)', () => ({ ...forwarded(), Accept: 'application/json' }), 401],
    ['a wrong Basic password (401)', () => ({ ...forwarded(), Authorization: `Basic ${Buffer.from('alice:no').toString('base64')}` }), 401],
    ['a malformed forwarded header (400)', () => ({ ...forwarded(), 'X-Forwarded-Method': 'G E T', Cookie: cookie }), 400],
  ];

  it.each(refused)('%s: a refusal goes to the client, so it is answered byte for byte as without the header', async (_name, headers, status) => {
    const [full, asked] = await exchange(port, [
      rawRequest('GET', '/api/auth/caddy', headers()),
      rawRequest('GET', '/api/auth/caddy', { ...headers(), Prefer: 'return=minimal' }),
    ]);
    expect(full.head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(full.body.length).toBeGreaterThan(0);
    expect(asked.head).toBe(full.head);
    expect(asked.body.equals(full.body)).toBe(true);
  });

  it.each([
    ['return=representation', false],
    ['return=minimal, return=representation', false],
    ['return=minimal; handling=lenient', true],
    ['respond-async, RETURN = "minimal"', true],
    ['wait=10', false],
  ])('Prefer: %s gives the minimal answer: %s', async (prefer, minimal) => {
    const [answer] = await exchange(port, [rawRequest('GET', '/api/auth/caddy', { ...forwarded(), Cookie: cookie, Prefer: prefer as string })]);
    expect(answer.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.body.length === 0).toBe(minimal);
    expect(headersOf(answer).get('preference-applied')).toBe(minimal ? 'return=minimal' : undefined);
  });

  it('answers a HEAD with the header as the GET with it, without a body either way', async () => {
    const headers = { ...forwarded(), Cookie: cookie, Prefer: 'return=minimal' };
    const [get, head] = await exchange(port, [rawRequest('GET', '/api/auth/caddy', headers), rawRequest('HEAD', '/api/auth/caddy', headers)]);
    expect(head.head).toBe(get.head);
    expect(get.body.length).toBe(0);
  });
});
