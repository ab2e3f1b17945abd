import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'otplib';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { RecordingAuditLog } from '../../support/fakes';
import { askForwardAuth, expectEnvelope, forwardedFor, postJson } from '../../support/http';
import { cookieFrom, startGatewayWithUsersFile, type RunningGateway } from '../../support/server';

// Issue 36: the console's applications (rules and OIDC clients, read-only) and everyone's access tokens.
const HASH = hashOf('pw');
const CLIENT_SECRET = 'admin-apps-client-secret-0123456789abcdef';
const PUBLIC_ID = 'spa';
const USERS_YAML = `users:
  - username: root
    password: "${HASH}"
    groups: [admins]
    totp_secret: ${TOTP_SECRET}
  - username: tom
    password: "${HASH}"
    groups: [staff]
  - username: ann
    password: "${HASH}"
`;
const RULES = `default_policy: deny
apps:
  wiki:
    domain: [wiki.example.test, "*.docs.example.test"]
    users: { allow: [tom, "/^ops-/i"], block: [mallory] }
    oauth: { groups: [staff] }
    path: { allow: ["^/public/"], block: [{ regex: "secret=", query: true }] }
    ip: { allow: [10.0.0.0/8, "2001:db8::/32"], bypass: [192.0.2.7] }
    tokens: deny
    response:
      headers: { X-Team: blue }
      basicauth: { username: svc, password_file: PASSWORD_FILE }
    paths:
      - match: "^/admin/"
        methods: [POST]
        groups: [admins]
        require: { second_factor: true, login: [passkey], max_age: 300 }
  grafana: {}
`;
const dir = mkdtempSync(join(tmpdir(), 'portcullis-admin-apps-'));
const rulesFile = join(dir, 'access.yaml');
const passwordFile = join(dir, 'upstream-password');
writeFileSync(passwordFile, 'upstream-basic-password-never-shown\n');
writeFileSync(rulesFile, RULES.replace('PASSWORD_FILE', passwordFile));

let now = Date.now();
const audit = new RecordingAuditLog();
let gw: RunningGateway;

beforeAll(async () => {
  gw = await startGatewayWithUsersFile(
    USERS_YAML,
    {
      ADMIN_GROUPS: 'admins',
      ACCESS_CONFIG: rulesFile,
      OIDC_CLIENTS_WIKI_CLIENT_ID: 'wiki',
      OIDC_CLIENTS_WIKI_NAME: 'The wiki',
      OIDC_CLIENTS_WIKI_CLIENT_SECRET: CLIENT_SECRET,
      OIDC_CLIENTS_WIKI_REDIRECT_URIS: 'https://wiki.example.test/cb',
      OIDC_CLIENTS_WIKI_ALLOWED_GROUPS: 'staff',
      OIDC_CLIENTS_WIKI_BACKCHANNEL_LOGOUT_URI: 'https://wiki.example.test/logout',
      OIDC_CLIENTS_SPA_CLIENT_ID: PUBLIC_ID,
      OIDC_CLIENTS_SPA_PUBLIC: 'true',
      OIDC_CLIENTS_SPA_REDIRECT_URIS: 'https://spa.example.test/cb',
    },
    { [TOKENS.Clock]: { now: () => now }, [TOKENS.AuditLog]: audit },
  );
});
afterAll(async () => {
  await gw.close();
  rmSync(dir, { recursive: true, force: true });
});

const sessionOf = (res: Response): string => `portcullis-session=${cookieFrom(res, 'portcullis-session')?.value}`;

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

jest.setTimeout(30_000);

const get = (path: string, cookie: string) => fetch(`${gw.url}${path}`, { headers: { cookie } });

describe('the admin console: applications, OIDC clients and tokens (issue 36)', () => {
  it('GET /api/admin/apps answers the rules as loaded: hosts, people, groups, paths, addresses and path requirements', async () => {
    const root = await login('root', true);
    const res = await get('/api/admin/apps', root);
    const text = await res.clone().text();
    const body = await expectEnvelope(res, 200);
    expect(body).toMatchObject({ code: 'apps', defaultPolicy: 'deny' });
    const apps = body.apps as Array<Record<string, unknown>>;
    expect(apps.map((a) => a.name)).toEqual(['wiki', 'grafana']);
    expect(apps[0]).toEqual({
      name: 'wiki',
      hosts: ['wiki.example.test', '*.docs.example.test'],
      users: { allow: ['tom', '/^ops-/i'], block: ['mallory'] },
      oauthWhitelist: [],
      groups: ['staff'],
      paths: { allow: [{ regex: '^\\/public\\/', query: false }], block: [{ regex: 'secret=', query: true }] },
      ip: { allow: ['10.0.0.0/8', '2001:db8:0:0:0:0:0:0/32'], block: [], bypass: ['192.0.2.7/32'] },
      requireSecondFactor: false,
      tokens: 'deny',
      assertion: false,
      responseHeaders: ['x-team'],
      basicauth: true,
      pathRules: [
        {
          where: 'apps.wiki.paths[0]',
          match: { regex: '^\\/admin\\/', query: false },
          methods: ['POST'],
          users: { allow: [], block: [] },
          groups: ['admins'],
          require: { secondFactor: true, methods: ['passkey'], maxAge: 300 },
        },
      ],
    });
    expect(apps[1]).toMatchObject({ name: 'grafana', hosts: ['grafana.*'] });
    expect(body.fallback).toMatchObject({ name: null, hosts: [] });
    // The upstream's Basic password and header values stay on the server.
    expect(text).not.toContain('upstream-basic-password-never-shown');
    expect(text).not.toContain(Buffer.from('svc:upstream-basic-password-never-shown').toString('base64'));
    expect(text).not.toContain('blue');
  });

  it('GET /api/admin/oidc-clients lists the configured clients and never a secret', async () => {
    const root = await login('root', true);
    const res = await get('/api/admin/oidc-clients', root);
    const text = await res.clone().text();
    const body = await expectEnvelope(res, 200);
    expect(body.code).toBe('oidc_clients');
    const clients = body.clients as Array<Record<string, unknown>>;
    const wiki = clients.find((c) => c.clientId === 'wiki');
    expect(wiki).toEqual({
      clientId: 'wiki',
      name: 'The wiki',
      type: 'confidential',
      tokenEndpointAuthMethod: 'client_secret_basic',
      redirectUris: ['https://wiki.example.test/cb'],
      postLogoutRedirectUris: [],
      scopes: expect.arrayContaining(['openid']),
      grantTypes: ['authorization_code', 'refresh_token'],
      allowedUsers: [],
      allowedGroups: ['staff'],
      backchannelLogoutUri: 'https://wiki.example.test/logout',
      frontchannelLogoutUri: null,
    });
    expect(clients.find((c) => c.clientId === PUBLIC_ID)).toMatchObject({ type: 'public', tokenEndpointAuthMethod: 'none' });
    expect(text).not.toContain(CLIENT_SECRET);
    for (const c of clients) expect(Object.keys(c).filter((k) => /secret|hash/i.test(k))).toEqual([]);
  });

  it("GET /api/admin/sessions lists everyone's live tokens (never the token), filtered by username; revoking one ends it", async () => {
    const root = await login('root', true);
    const tom = await login('tom', false);
    const ann = await login('ann', false);
    const created = await postJson(gw, '/api/account/tokens', { name: 'ci' }, { cookie: tom });
    expect(created.status).toBe(201);
    const secret = String(((await created.json()) as { token: string }).token);
    expect((await postJson(gw, '/api/account/tokens', { name: 'laptop' }, { cookie: ann })).status).toBe(201);

    const everyone = await get('/api/admin/sessions', root);
    const everyoneText = await everyone.clone().text();
    const all = (await expectEnvelope(everyone, 200)).tokens as Array<Record<string, unknown>>;
    expect(all.map((t) => t.username).sort()).toEqual(['ann', 'tom']);
    expect(everyoneText).not.toContain(secret);
    const listed = (await expectEnvelope(await get('/api/admin/sessions?username=tom', root), 200)).tokens as Array<Record<string, unknown>>;
    expect(listed).toEqual([
      { id: expect.any(String), username: 'tom', name: 'ci', apps: null, createdAt: expect.any(String), lastUsedAt: null, expiresAt: expect.any(String) },
    ]);

    const probe = () =>
      askForwardAuth(gw, 'traefik', { 'portcullis-token': secret, accept: 'application/json', ...forwardedFor('https://grafana.example.test/') });
    expect((await probe()).status).toBe(200);
    const revoked = await postJson(gw, '/api/admin/tokens/revoke', { id: listed[0].id }, { cookie: root });
    expect(await expectEnvelope(revoked, 200)).toMatchObject({ code: 'token_revoked', username: 'tom' });
    expect((await probe()).status).toBe(401);
    expect(await expectEnvelope(await postJson(gw, '/api/admin/tokens/revoke', { id: listed[0].id }, { cookie: root }), 404)).toMatchObject({
      code: 'token_not_found',
    });
    expect(await expectEnvelope(await postJson(gw, '/api/admin/tokens/revoke', { id: 7 }, { cookie: root }), 400)).toMatchObject({ code: 'invalid_fields' });
    expect(audit.events.filter((e) => e.event === 'token_revoked')).toEqual([
      expect.objectContaining({ event: 'token_revoked', username: 'tom', id: listed[0].id, by: 'admin', admin: 'root' }),
    ]);
    expect(JSON.stringify(audit.events)).not.toContain(secret);
    const after = (await expectEnvelope(await get('/api/admin/sessions?username=tom', root), 200)).tokens;
    expect(after).toEqual([]);
  });

  it('refuses a cross-site token revocation and ends nothing', async () => {
    const root = await login('root', true);
    const ann = await login('ann', false);
    const tokens = (await expectEnvelope(await get('/api/admin/sessions?username=ann', root), 200)).tokens as Array<{ id: string }>;
    expect(tokens.length).toBeGreaterThan(0);
    const crossSite = await postJson(gw, '/api/admin/tokens/revoke', { id: tokens[0].id }, { cookie: root, 'sec-fetch-site': 'cross-site' });
    expect(await expectEnvelope(crossSite, 403)).toMatchObject({ code: 'cross_site_request' });
    const foreign = await postJson(gw, '/api/admin/tokens/revoke', { id: tokens[0].id }, { cookie: root, origin: 'https://evil.example' });
    expect(await expectEnvelope(foreign, 403)).toMatchObject({ code: 'cross_site_request' });
    const still = (await expectEnvelope(await get('/api/admin/sessions?username=ann', root), 200)).tokens as unknown[];
    expect(still).toHaveLength(tokens.length);
    expect(ann).toContain('portcullis-session=');
  });
});
