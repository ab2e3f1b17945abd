import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'otplib';
import { ADMIN_API_METHODS } from '../../../src/adapters/http/admin-routes';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { expectEnvelope, postJson } from '../../support/http';
import { cookieFrom, startGateway, startGatewayWithUsersFile, type RunningGateway } from '../../support/server';

// Issue 36: the admin console's API through the real server, with the gateway's clock in the test's hand.
const HASH = hashOf('pw');
const USERS_YAML = `users:
  - username: root
    password: "${HASH}"
    name: Root
    email: root@example.test
    groups: [admins]
    totp_secret: ${TOTP_SECRET}
  - username: pam
    password: "${HASH}"
    groups: [admins]
  - username: tom
    password: "${HASH}"
    groups: [staff]
    totp_secret: ${TOTP_SECRET}
  - username: ann
    password: "${HASH}"
`;
const dir = mkdtempSync(join(tmpdir(), 'portcullis-admin-'));
const rulesFile = join(dir, 'access.yaml');
writeFileSync(rulesFile, 'apps:\n  wiki:\n    domain: [wiki.example.test]\n    users: { allow: [tom] }\n');

let now = Date.now();
let gw: RunningGateway;

beforeAll(async () => {
  gw = await startGatewayWithUsersFile(USERS_YAML, { ADMIN_GROUPS: 'admins', ACCESS_CONFIG: rulesFile }, { [TOKENS.Clock]: { now: () => now } });
});
afterAll(async () => {
  await gw.close();
  rmSync(dir, { recursive: true, force: true });
});

const sessionOf = (res: Response): string => `portcullis-session=${cookieFrom(res, 'portcullis-session')?.value}`;

/** A full session: the password, then the TOTP code when the account has one (each in a time step of its own). */
async function login(user: string, totp: boolean): Promise<string> {
  const res = await postJson(gw, '/api/login', { username: user, password: 'pw' });
  expect(res.status).toBe(200);
  if (!totp) return sessionOf(res);
  now += 30_000;
  const code = await generate({ secret: TOTP_SECRET, epoch: Math.floor(now / 1000) });
  const t = await postJson(gw, '/api/totp', { code }, { cookie: sessionOf(res) });
  expect(t.status).toBe(200);
  return sessionOf(t);
}

/** Each admin route, asked with `headers` (a POST with a body that is valid for it). */
function ask(path: string, method: string, headers: Record<string, string>, g: RunningGateway = gw): Promise<Response> {
  if (method === 'POST') {
    const body = path.endsWith('/explain')
      ? { url: 'https://wiki.example.test/' }
      : path.endsWith('/tokens/revoke')
        ? { id: 'nothing' }
        : { username: 'nobody' };
    return postJson(g, path, body, headers);
  }
  return fetch(`${g.url}${path}`, { method, headers, redirect: 'manual' });
}
const ROUTES = ADMIN_API_METHODS.flatMap(([path, methods]) => methods.filter((m) => m !== 'HEAD').map((m) => [path, m] as const));

describe('the admin API (issue 36)', () => {
  it('lists the routes this suite covers: every one the gateway registers under /api/admin', () => {
    expect(ROUTES.map(([p, m]) => `${m} ${p}`)).toEqual([
      'GET /api/admin/users',
      'POST /api/admin/users',
      'POST /api/admin/users/update',
      'POST /api/admin/users/disable',
      'POST /api/admin/users/enable',
      'POST /api/admin/users/delete',
      'GET /api/admin/sessions',
      'POST /api/admin/sessions/revoke',
      'POST /api/admin/explain',
      'GET /api/admin/apps',
      'GET /api/admin/oidc-clients',
      'POST /api/admin/tokens/revoke',
      'GET /api/admin/audit',
      'GET /api/admin/audit/export',
      'POST /api/admin/invitations',
      'POST /api/admin/users/totp/remove',
      'POST /api/admin/users/passkeys/remove',
    ]);
  });

  it('answers 403 admin_required on every route to a non-administrator: password session, TOTP session, Basic, token, nobody', async () => {
    const ann = await login('ann', false);
    const tom = await login('tom', true);
    const created = await postJson(gw, '/api/account/tokens', { name: 'ci' }, { cookie: ann });
    const token = String(((await created.json()) as { token: string }).token);
    const callers: Record<string, Record<string, string>> = {
      password: { cookie: ann },
      totp: { cookie: tom },
      basic: { authorization: `Basic ${Buffer.from('root:pw').toString('base64')}` },
      token: { authorization: `Bearer ${token}` },
      anonymous: {},
    };
    for (const [path, method] of ROUTES) {
      for (const [who, headers] of Object.entries(callers)) {
        const res = await ask(path, method, headers);
        expect([who, path, res.status]).toEqual([who, path, 403]);
        expect(await expectEnvelope(res, 403)).toMatchObject({ code: 'admin_required' });
      }
    }
  }, 30_000);

  it('answers 401 step_up_required to an administrator without a fresh second factor, with the login page to send the browser to', async () => {
    const pam = await login('pam', false);
    const root = await login('root', true);
    now += 601_000;
    for (const [path, method] of ROUTES) {
      for (const cookie of [pam, root]) {
        const body = await expectEnvelope(await ask(path, method, { cookie }), 401);
        expect(body).toMatchObject({ code: 'step_up_required', methods: ['totp', 'passkey'], maxAge: 600 });
        expect(String(body.location)).toBe(`https://auth.example.test/login?step_up=${encodeURIComponent(String(body.reference))}`);
      }
    }
    // The step-up the login page completes makes the same session an administrator again, back on the console.
    const refused = (await (await ask('/api/admin/users', 'GET', { cookie: root })).json()) as { reference: string };
    const code = await generate({ secret: TOTP_SECRET, epoch: Math.floor(now / 1000) });
    const stepped = await postJson(gw, '/api/step-up', { ref: refused.reference, method: 'totp', code }, { cookie: root });
    expect(await stepped.clone().json()).toMatchObject({ code: 'stepped_up', redirect: 'https://auth.example.test/admin' });
    expect((await ask('/api/admin/users', 'GET', { cookie: sessionOf(stepped) })).status).toBe(200);
  });

  it('serves the /admin page and tells the account page who may open it', async () => {
    expect((await fetch(`${gw.url}/admin`)).status).toBe(200);
    const root = await login('root', true);
    const ann = await login('ann', false);
    const adminOf = async (cookie: string) =>
      ((await (await fetch(`${gw.url}/api/account`, { headers: { cookie } })).json()) as { user: { admin: boolean } }).user.admin;
    expect(await adminOf(root)).toBe(true);
    expect(await adminOf(ann)).toBe(false);
  });

  it('GET /api/admin/users lists the configured people with their source, TOTP and passkeys', async () => {
    const root = await login('root', true);
    const body = await expectEnvelope(await fetch(`${gw.url}/api/admin/users`, { headers: { cookie: root } }), 200);
    expect(body.code).toBe('users');
    expect(body.version).toMatch(/^[0-9a-f]{64}$/);
    expect(body.users).toEqual([
      { username: 'ann', name: 'ann', email: expect.any(String), groups: [], disabled: false, source: 'file', totp: false, passkeys: 0 },
      { username: 'pam', name: 'pam', email: expect.any(String), groups: ['admins'], disabled: false, source: 'file', totp: false, passkeys: 0 },
      { username: 'root', name: 'Root', email: 'root@example.test', groups: ['admins'], disabled: false, source: 'file', totp: true, passkeys: 0 },
      { username: 'tom', name: 'tom', email: expect.any(String), groups: ['staff'], disabled: false, source: 'file', totp: true, passkeys: 0 },
    ]);
  });

  it('GET /api/admin/users?q= finds people by part of their username, name, e-mail or a group', async () => {
    const root = await login('root', true);
    const found = async (q: string): Promise<string[]> => {
      const body = await expectEnvelope(await fetch(`${gw.url}/api/admin/users?q=${encodeURIComponent(q)}`, { headers: { cookie: root } }), 200);
      return (body.users as Array<{ username: string }>).map((u) => u.username);
    };
    expect(await found('ADMIN')).toEqual(['pam', 'root']);
    expect(await found('root@example')).toEqual(['root']);
    expect(await found('sta')).toEqual(['tom']);
    expect(await found('nobody-at-all')).toEqual([]);
    expect(await found('')).toEqual(['ann', 'pam', 'root', 'tom']);
    const twice = await fetch(`${gw.url}/api/admin/users?q=a&q=b`, { headers: { cookie: root } });
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { code: string }).code).toBe('invalid_fields');
  });

  it('lists sessions, ends one by id and all of a person; an ended session stops passing forward auth', async () => {
    const root = await login('root', true);
    const tom1 = await login('tom', true);
    const tom2 = await login('tom', true);
    const wiki = (cookie: string) =>
      fetch(`${gw.url}/api/auth/traefik`, {
        headers: {
          cookie,
          accept: 'application/json',
          'x-forwarded-proto': 'https',
          'x-forwarded-host': 'wiki.example.test',
          'x-forwarded-uri': '/',
          'x-forwarded-method': 'GET',
        },
        redirect: 'manual',
      });
    expect((await wiki(tom1)).status).toBe(200);
    const listed = await expectEnvelope(await fetch(`${gw.url}/api/admin/sessions?username=tom`, { headers: { cookie: root } }), 200);
    const sessions = listed.sessions as Array<Record<string, unknown>>;
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    expect(sessions[0]).toEqual({
      id: expect.any(String),
      username: 'tom',
      method: 'totp',
      browser: expect.any(String),
      platform: expect.any(String),
      address: expect.any(String),
      startedAt: expect.any(String),
      lastSeenAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    const everyone = await expectEnvelope(await fetch(`${gw.url}/api/admin/sessions`, { headers: { cookie: root } }), 200);
    expect((everyone.sessions as Array<{ username: string }>).some((s) => s.username === 'root')).toBe(true);

    const tom2Id = sessions[0].id as string;
    const one = await expectEnvelope(await postJson(gw, '/api/admin/sessions/revoke', { id: tom2Id }, { cookie: root }), 200);
    expect(one).toMatchObject({ code: 'sessions_revoked', revoked: 1 });
    expect((await wiki(tom2)).status).toBe(401);
    expect((await wiki(tom1)).status).toBe(200);
    expect(await expectEnvelope(await postJson(gw, '/api/admin/sessions/revoke', { id: tom2Id }, { cookie: root }), 404)).toMatchObject({
      code: 'live_session_not_found',
    });
    const all = await expectEnvelope(await postJson(gw, '/api/admin/sessions/revoke', { username: 'tom' }, { cookie: root }), 200);
    expect(all.revoked).toBeGreaterThanOrEqual(1);
    expect((await wiki(tom1)).status).toBe(401);
    expect(await expectEnvelope(await postJson(gw, '/api/admin/sessions/revoke', { id: 'a', username: 'b' }, { cookie: root }), 400)).toMatchObject({
      code: 'invalid_fields',
    });
  });

  it('refuses a cross-site or non-JSON change and ends nothing', async () => {
    const root = await login('root', true);
    const tom = await login('tom', true);
    const crossSite = await postJson(gw, '/api/admin/sessions/revoke', { username: 'tom' }, { cookie: root, 'sec-fetch-site': 'cross-site' });
    expect(await expectEnvelope(crossSite, 403)).toMatchObject({ code: 'cross_site_request' });
    const form = await postJson(gw, '/api/admin/sessions/revoke', 'username=tom', {
      cookie: root,
      'content-type': 'application/x-www-form-urlencoded',
      origin: 'https://evil.example',
    });
    expect(await expectEnvelope(form, 403)).toMatchObject({ code: 'cross_site_request' });
    const listed = await expectEnvelope(await fetch(`${gw.url}/api/admin/sessions?username=tom`, { headers: { cookie: root } }), 200);
    expect((listed.sessions as unknown[]).length).toBeGreaterThanOrEqual(1);
    expect(tom).toContain('portcullis-session=');
  });

  it('POST /api/admin/explain answers the decision of the loaded rules and why', async () => {
    const root = await login('root', true);
    const explain = (body: unknown) => postJson(gw, '/api/admin/explain', body, { cookie: root });
    expect(await expectEnvelope(await explain({ url: 'https://wiki.example.test/page', username: 'tom', groups: ['staff'] }), 200)).toMatchObject({
      code: 'decision',
      decision: 'allow',
      reason: 'allow',
    });
    const denied = await expectEnvelope(await explain({ url: 'https://wiki.example.test/page', username: 'ann' }), 200);
    expect(denied).toMatchObject({ code: 'decision', decision: 'deny', reason: expect.any(String), app: 'wiki' });
    expect(await expectEnvelope(await explain({ url: 'https://wiki.example.test/' }), 200)).toMatchObject({ decision: 'login_required' });
    expect(await expectEnvelope(await explain({ url: 'not a url' }), 400)).toMatchObject({ code: 'invalid_url' });
    expect(await expectEnvelope(await explain({ groups: 'staff' }), 400)).toMatchObject({ code: 'invalid_fields' });
  });
});

describe('without ADMIN_GROUPS', () => {
  it('answers 404 on every admin route, even to a person in a group named admins', async () => {
    const off = await startGateway({ USERS: `root:${HASH}` });
    try {
      for (const [path, method] of ROUTES) expect([path, (await ask(path, method, {}, off)).status]).toEqual([path, 404]);
      expect((await fetch(`${off.url}/admin`)).status).toBe(404);
      // Nor the set-password page and its endpoint: no invitation can exist without the console.
      expect((await fetch(`${off.url}/invite`)).status).toBe(404);
      expect((await postJson(off, '/api/invitations/password', { code: 'A'.repeat(48), password: 'long enough to pass' })).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
