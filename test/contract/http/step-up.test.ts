import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'otplib';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { cookieFrom, startGateway, type RunningGateway } from '../../support/server';

// Issue 33: per-path requirements through the real server, with the gateway's clock in the test's hand.
const dir = mkdtempSync(join(tmpdir(), 'portcullis-step-up-'));
const rulesFile = join(dir, 'access.yaml');
writeFileSync(
  rulesFile,
  `
apps:
  wiki:
    domain: [wiki.example.test]
    paths:
      - match: "^/admin"
        require: { second_factor: true, max_age: 600 }
      - match: "^/vault"
        require: { login: [passkey] }
      - match: "^/billing"
        require: { login: [password], max_age: 60 }
`,
);
const USERS = [`tom:${hashOf('pw')}:${TOTP_SECRET}`, `ann:${hashOf('pw')}`].join(',');

let now = Date.now();
let gw: RunningGateway;

beforeAll(async () => {
  gw = await startGateway({ USERS, ACCESS_CONFIG: rulesFile }, { [TOKENS.Clock]: { now: () => now } });
});
afterAll(async () => {
  await gw.close();
  rmSync(dir, { recursive: true, force: true });
});

interface AccountAnswer {
  currentSession: string;
  sessions: { id: string }[];
}
const codeOf = async (res: Response): Promise<unknown> => ((await res.json()) as { code?: unknown }).code;

const sessionOf = (res: Response): string => `portcullis-session=${cookieFrom(res, 'portcullis-session')?.value}`;
const json = (cookie: string, extra: Record<string, string> = {}) => ({ 'content-type': 'application/json', cookie, ...extra });

async function login(user: string, totp: boolean): Promise<string> {
  const res = await fetch(`${gw.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: user, password: 'pw' }),
  });
  expect(res.status).toBe(200);
  if (!totp) return sessionOf(res);
  const code = await generate({ secret: TOTP_SECRET, epoch: Math.floor(now / 1000) });
  const t = await fetch(`${gw.url}/api/totp`, { method: 'POST', headers: json(sessionOf(res)), body: JSON.stringify({ code }) });
  expect(t.status).toBe(200);
  return sessionOf(t);
}

function forwardAuth(proxy: 'traefik' | 'nginx' | 'caddy', uri: string, cookie: string, accept = 'text/html'): Promise<Response> {
  const headers: Record<string, string> = { accept, cookie };
  if (proxy === 'nginx') headers['x-original-url'] = `https://wiki.example.test${uri}`;
  else Object.assign(headers, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'wiki.example.test', 'x-forwarded-uri': uri, 'x-forwarded-method': 'GET' });
  return fetch(`${gw.url}/api/auth/${proxy}`, { headers, redirect: 'manual' });
}

/** The step-up reference of a browser's refusal. */
function referenceOf(res: Response): string {
  const location = res.headers.get('location') ?? res.headers.get('x-portcullis-location') ?? '';
  const url = new URL(location);
  expect(`${url.origin}${url.pathname}`).toBe('https://auth.example.test/login');
  return url.searchParams.get('step_up') ?? '';
}

describe('per-path step-up through the HTTP API', () => {
  it('a password-and-TOTP session older than max_age is sent to a step-up that asks only for the code, and passes after it with the same session', async () => {
    const tom = await login('tom', true);
    expect((await forwardAuth('traefik', '/admin/users', tom)).status).toBe(200);
    now += 601_000;
    const refused = await forwardAuth('traefik', '/admin/users', tom);
    expect(refused.status).toBe(302);
    const ref = referenceOf(refused);
    // Elsewhere in the app, nothing is asked.
    expect((await forwardAuth('traefik', '/page', tom)).status).toBe(200);

    const described = await fetch(`${gw.url}/api/step-up?ref=${encodeURIComponent(ref)}`, { headers: { cookie: tom } });
    expect(await described.json()).toMatchObject({
      status: 200,
      code: 'step_up',
      username: 'tom',
      methods: ['totp'],
      maxAge: 600,
      returnTo: 'https://wiki.example.test/admin/users',
    });

    const before = (await (await fetch(`${gw.url}/api/account`, { headers: { cookie: tom } })).json()) as AccountAnswer;
    const code = await generate({ secret: TOTP_SECRET, epoch: Math.floor(now / 1000) });
    const stepped = await fetch(`${gw.url}/api/step-up`, { method: 'POST', headers: json(tom), body: JSON.stringify({ ref, method: 'totp', code }) });
    expect(await stepped.clone().json()).toMatchObject({ status: 200, code: 'stepped_up', redirect: 'https://wiki.example.test/admin/users' });
    const after = sessionOf(stepped);
    expect((await forwardAuth('traefik', '/admin/users', after)).status).toBe(200);
    // The same session: its id and its one entry on the account page stay.
    const account = (await (await fetch(`${gw.url}/api/account`, { headers: { cookie: after } })).json()) as AccountAnswer;
    expect(account.currentSession).toBe(before.currentSession);
    expect(account.sessions.map((s: { id: string }) => s.id)).toEqual(before.sessions.map((s: { id: string }) => s.id));
  });

  it('a passkey requirement is refused after a fresh TOTP code: the step-up asks for the passkey and a code does not meet it', async () => {
    now += 30_000; // a TOTP step of its own: the last test's code is spent
    const tom = await login('tom', true);
    const refused = await forwardAuth('caddy', '/vault', tom);
    expect(refused.status).toBe(302);
    const ref = referenceOf(refused);
    const code = await generate({ secret: TOTP_SECRET, epoch: Math.floor(now / 1000) + 30 });
    const res = await fetch(`${gw.url}/api/step-up`, { method: 'POST', headers: json(tom), body: JSON.stringify({ ref, method: 'totp', code }) });
    expect(res.status).toBe(400);
    expect(await codeOf(res)).toBe('step_up_method');
    expect((await forwardAuth('caddy', '/vault', tom)).status).toBe(302);
  });

  it('nginx gets 401 with the step-up page in X-Portcullis-Location; an API client gets 401 step_up_required with the methods and max_age', async () => {
    const ann = await login('ann', false);
    const viaNginx = await forwardAuth('nginx', '/admin', ann);
    expect(viaNginx.status).toBe(401);
    expect(referenceOf(viaNginx)).not.toBe('');
    const api = await forwardAuth('traefik', '/admin', ann, 'application/json');
    expect(api.status).toBe(401);
    expect(await api.json()).toEqual({ status: 401, code: 'step_up_required', message: expect.any(String), methods: ['totp', 'passkey'], maxAge: 600 });
    expect(api.headers.get('www-authenticate')).toBe(
      'Portcullis realm="portcullis", error="insufficient_user_authentication", methods="totp passkey", max_age=600',
    );
  });

  it('tells an account that holds none of the methods so, and refuses a forged reference, a missing one and a cross-site post', async () => {
    const ann = await login('ann', false);
    const ref = referenceOf(await forwardAuth('traefik', '/admin', ann));
    const described = await (await fetch(`${gw.url}/api/step-up?ref=${encodeURIComponent(ref)}`, { headers: { cookie: ann } })).json();
    expect(described).toMatchObject({ code: 'step_up', methods: [] });
    const forged = await fetch(`${gw.url}/api/step-up?ref=${encodeURIComponent(`${ref.slice(0, -3)}AAA`)}`, { headers: { cookie: ann } });
    expect([forged.status, await codeOf(forged)]).toEqual([400, 'invalid_step_up']);
    const missing = await fetch(`${gw.url}/api/step-up`, { headers: { cookie: ann } });
    expect([missing.status, await codeOf(missing)]).toEqual([400, 'invalid_fields']);
    const crossSite = await fetch(`${gw.url}/api/step-up`, {
      method: 'POST',
      headers: json(ann, { 'sec-fetch-site': 'cross-site' }),
      body: JSON.stringify({ ref, method: 'password', password: 'pw' }),
    });
    expect([crossSite.status, await codeOf(crossSite)]).toEqual([403, 'cross_site_request']);
    const noBody = await fetch(`${gw.url}/api/step-up`, { method: 'POST', headers: json(ann), body: '{}' });
    expect([noBody.status, await codeOf(noBody)]).toEqual([400, 'invalid_fields']);
  });

  it('counts wrong step-up passwords toward the lock like failed logins, and a locked account cannot step up', async () => {
    const ann = await login('ann', false);
    now += 61_000;
    const ref = referenceOf(await forwardAuth('traefik', '/billing', ann));
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const res = await fetch(`${gw.url}/api/step-up`, {
        method: 'POST',
        headers: json(ann),
        body: JSON.stringify({ ref, method: 'password', password: 'wrong' }),
      });
      statuses.push(res.status);
    }
    // LOGIN_MAX_RETRIES (5 by default) wrong answers, then the account is locked: the right one is refused too.
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const right = await fetch(`${gw.url}/api/step-up`, {
      method: 'POST',
      headers: json(ann),
      body: JSON.stringify({ ref, method: 'password', password: 'pw' }),
    });
    expect([right.status, await codeOf(right)]).toEqual([429, 'account_locked']);
    const again = await fetch(`${gw.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'ann', password: 'pw' }),
    });
    expect(again.status).toBe(429);
    expect((await forwardAuth('traefik', '/billing', ann)).status).toBe(302);
  });
});
