import { generate } from 'otplib';
import { ADMIN_API_METHODS } from '../../src/adapters/http/admin-routes';
import { hashOf, TOTP_SECRET } from '../support/credentials';
import { rawHttp, requestHead, type RawAnswer } from './support/raw-http';
import { HOSTS, loginThroughNginx, PASSWORDS, startSecurityStack, type ProxyName, type SecurityStack } from './support/stack';

/**
 * Issue 36, through the real nginx and Caddy configured from examples/: every `/api/admin/*` route
 * the gateway has (ADMIN_API_METHODS, which a unit test proves is every one its router registers)
 * refuses a non-administrator (password session, TOTP session, HTTP Basic, access token) with 403
 * admin_required, an administrator without a fresh second factor with 401 step_up_required, and a
 * cross-site POST with 403 cross_site_request; a stepped-up administrator reads every GET.
 */

const PROXIES: readonly ProxyName[] = ['nginx', 'caddy'];
/** carol: an administrator with TOTP (a fresh second factor once logged in); dave: staff with TOTP. */
const TOTP_PEOPLE = { carol: 'carol-Adm1n-T0tp-pa55word!', dave: 'dave-Staff-T0tp-pa55word!' } as const;
const ROUTES = ADMIN_API_METHODS.flatMap(([path, methods]) => methods.filter((m) => m !== 'HEAD').map((m) => [path, m] as const));

/** A body each POST route takes as valid, so only the gate (or the site check) can refuse it. */
function bodyFor(path: string): unknown {
  if (path.endsWith('/explain')) return { url: `https://${HOSTS.koa}/` };
  if (path.endsWith('/tokens/revoke')) return { id: 'no-such-token' };
  return { username: 'nobody' };
}

let stack: SecurityStack;
const cookies: Record<string, string> = {};
let token = '';

async function ask(proxy: ProxyName, method: string, path: string, headers: ReadonlyArray<readonly [string, string]>, body?: unknown): Promise<RawAnswer> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const head: [string, string][] = [
    ['Host', `${HOSTS.auth}:${stack.proxies[proxy]}`],
    ['Accept', 'application/json'],
    ...headers.map(([n, v]) => [n, v] as [string, string]),
  ];
  if (body !== undefined) head.push(['Content-Type', 'application/json'], ['Content-Length', String(Buffer.byteLength(text))]);
  return rawHttp(stack.proxies[proxy], requestHead(method, path, head, text));
}

const codeOf = (a: RawAnswer): unknown => (JSON.parse(a.body) as { code?: unknown }).code;

async function totpLogin(username: keyof typeof TOTP_PEOPLE): Promise<string> {
  const first = await ask('nginx', 'POST', '/api/login', [], { username, password: TOTP_PEOPLE[username] });
  const pending = first.setCookies.find((c) => c.startsWith('portcullis-session='))?.split(';')[0];
  if (first.status !== 200 || pending === undefined) throw new Error(`login of ${username} failed: ${first.text}`);
  const code = await generate({ secret: TOTP_SECRET });
  const second = await ask('nginx', 'POST', '/api/totp', [['Cookie', pending]], { code });
  const full = second.setCookies.find((c) => c.startsWith('portcullis-session='))?.split(';')[0];
  if (second.status !== 200 || full === undefined) throw new Error(`TOTP of ${username} failed: ${second.text}`);
  return full;
}

beforeAll(async () => {
  stack = await startSecurityStack({
    env: { ADMIN_GROUPS: 'admin' },
    users: [
      `  - { username: carol, password: "${hashOf(TOTP_PEOPLE.carol)}", groups: [admin], totp_secret: ${TOTP_SECRET} }`,
      `  - { username: dave, password: "${hashOf(TOTP_PEOPLE.dave)}", groups: [staff], totp_secret: ${TOTP_SECRET} }`,
    ],
  });
  cookies.alice = await loginThroughNginx(stack, 'alice');
  cookies.bob = await loginThroughNginx(stack, 'bob');
  cookies.carol = await totpLogin('carol');
  cookies.dave = await totpLogin('dave');
  const created = await ask('nginx', 'POST', '/api/account/tokens', [['Cookie', cookies.bob]], { name: 'security-suite' });
  if (created.status !== 201) throw new Error(`token creation failed: ${created.text}`);
  token = String((JSON.parse(created.body) as { token: string }).token);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe.each(PROXIES)('every /api/admin route through %s', (proxy) => {
  it('walks the whole route list, POSTs and GETs alike', () => {
    expect(ROUTES.length).toBeGreaterThanOrEqual(7);
    expect(ROUTES.some(([, m]) => m === 'POST')).toBe(true);
    expect(ROUTES.some(([, m]) => m === 'GET')).toBe(true);
  });

  it("answers 403 admin_required to a non-administrator: password session, TOTP session, Basic (even an administrator's), token, nobody", async () => {
    const callers: Record<string, ReadonlyArray<readonly [string, string]>> = {
      password: [['Cookie', cookies.bob]],
      totp: [['Cookie', cookies.dave]],
      basic: [['Authorization', basic('bob', PASSWORDS.bob)]],
      'admin basic': [['Authorization', basic('alice', PASSWORDS.alice)]],
      token: [['Authorization', `Bearer ${token}`]],
      'token header': [['Portcullis-Token', token]],
      anonymous: [],
    };
    const wrong: string[] = [];
    for (const [path, method] of ROUTES) {
      for (const [who, headers] of Object.entries(callers)) {
        const answer = await ask(proxy, method, path, headers, method === 'POST' ? bodyFor(path) : undefined);
        if (answer.status !== 403 || codeOf(answer) !== 'admin_required' || answer.headers['x-request-id'] === undefined)
          wrong.push(`${who} ${method} ${path} -> ${answer.status} ${answer.body}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 60_000);

  it('answers 401 step_up_required to an administrator without a fresh second factor', async () => {
    const wrong: string[] = [];
    for (const [path, method] of ROUTES) {
      const answer = await ask(proxy, method, path, [['Cookie', cookies.alice]], method === 'POST' ? bodyFor(path) : undefined);
      if (answer.status !== 401 || codeOf(answer) !== 'step_up_required') wrong.push(`${method} ${path} -> ${answer.status} ${answer.body}`);
    }
    expect(wrong).toEqual([]);
  });

  it('refuses every cross-site POST of a stepped-up administrator (Sec-Fetch-Site, foreign Origin, a form)', async () => {
    const wrong: string[] = [];
    for (const [path, method] of ROUTES.filter(([, m]) => m === 'POST')) {
      for (const extra of [[['Sec-Fetch-Site', 'cross-site']], [['Origin', 'https://evil.example']]] as const) {
        const answer = await ask(proxy, method, path, [['Cookie', cookies.carol], ...extra], bodyFor(path));
        if (answer.status !== 403 || codeOf(answer) !== 'cross_site_request') wrong.push(`${extra[0][0]} ${path} -> ${answer.status} ${answer.body}`);
      }
      const form = 'username=nobody';
      const head: [string, string][] = [
        ['Host', `${HOSTS.auth}:${stack.proxies[proxy]}`],
        ['Cookie', cookies.carol],
        ['Origin', 'https://evil.example'],
        ['Content-Type', 'application/x-www-form-urlencoded'],
        ['Content-Length', String(form.length)],
      ];
      const answer = await rawHttp(stack.proxies[proxy], requestHead('POST', path, head, form));
      if (answer.status !== 403 || codeOf(answer) !== 'cross_site_request') wrong.push(`form ${path} -> ${answer.status} ${answer.body}`);
    }
    expect(wrong).toEqual([]);
  });

  it('answers 200 on every GET to an administrator with a fresh second factor', async () => {
    const wrong: string[] = [];
    for (const [path, method] of ROUTES.filter(([, m]) => m === 'GET')) {
      const answer = await ask(proxy, method, path, [['Cookie', cookies.carol]]);
      if (answer.status !== 200 || answer.headers['x-request-id'] === undefined) wrong.push(`${path} -> ${answer.status} ${answer.body}`);
    }
    expect(wrong).toEqual([]);
  });
});
