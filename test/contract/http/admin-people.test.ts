import { readFileSync, writeFileSync } from 'node:fs';
import { generate } from 'otplib';
import type { AuditEvent } from '../../../src/application/ports/audit-log';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { expectEnvelope, postJson } from '../../support/http';
import { cookieFrom, startGatewayWithUsersFile } from '../../support/server';

// Issue 36: the People section's changes through the real server, written to a real users file.
const HASH = hashOf('pw');
const USERS_YAML = `# People of the test gateway; the console must keep this comment.
users:
  - username: root   # the first administrator
    password: "${HASH}"
    groups: [admins]
    totp_secret: ${TOTP_SECRET}
  - username: pam
    password: "${HASH}"
    groups: [admins]
  - username: tom
    password: "${HASH}"
    groups: [staff]
  - username: ann
    password: "${HASH}"

# end
`;

let now = Date.now();
let gw: Awaited<ReturnType<typeof startGatewayWithUsersFile>>;
const audited: AuditEvent[] = [];

beforeAll(async () => {
  gw = await startGatewayWithUsersFile(
    USERS_YAML,
    { ADMIN_GROUPS: 'admins', USERS: `uma:${HASH}` },
    { [TOKENS.Clock]: { now: () => now }, [TOKENS.AuditLog]: { record: (e: AuditEvent) => audited.push(e) } },
  );
});
afterAll(async () => {
  await gw.close();
});

const sessionOf = (res: Response): string => `portcullis-session=${cookieFrom(res, 'portcullis-session')?.value}`;

async function login(user: string, totp = false): Promise<string> {
  const res = await postJson(gw, '/api/login', { username: user, password: 'pw' });
  expect([user, res.status]).toEqual([user, 200]);
  if (!totp) return sessionOf(res);
  now += 30_000;
  const code = await generate({ secret: TOTP_SECRET, epoch: Math.floor(now / 1000) });
  const t = await postJson(gw, '/api/totp', { code }, { cookie: sessionOf(res) });
  expect(t.status).toBe(200);
  return sessionOf(t);
}

/** Whether a session passes forward auth now. */
async function passes(cookie: string): Promise<number> {
  const res = await fetch(`${gw.url}/api/auth/traefik`, {
    headers: { cookie, accept: 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test', 'x-forwarded-uri': '/' },
    redirect: 'manual',
  });
  return res.status;
}

interface Listed {
  users: Array<{ username: string; name: string; email: string; groups: string[]; disabled: boolean; source: string }>;
  version: string;
}

async function list(cookie: string): Promise<Listed> {
  return (await expectEnvelope(await fetch(`${gw.url}/api/admin/users`, { headers: { cookie } }), 200)) as unknown as Listed;
}

const personOf = async (cookie: string, username: string) => (await list(cookie)).users.find((u) => u.username === username);

describe('the People API (issue 36)', () => {
  let root: string;
  beforeAll(async () => {
    root = await login('root', true);
  });

  it('creates a passkey-only person in the file and lists them; a taken name is user_exists, wherever it lives', async () => {
    const before = await list(root);
    const res = await expectEnvelope(
      await postJson(gw, '/api/admin/users', { username: 'nina', name: 'Nina Simone', email: 'Nina@Example.test', groups: ['staff'] }, { cookie: root }),
      200,
    );
    expect(res).toMatchObject({ code: 'user_created', username: 'nina', version: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(res.version).not.toBe(before.version);
    const file = readFileSync(gw.usersFile, 'utf8');
    expect(file).toBe(
      USERS_YAML.replace(
        '\n# end',
        '  - username: nina\n    name: Nina Simone\n    email: nina@example.test\n    groups: [staff]\n    passkey_only: true\n\n# end',
      ),
    );
    expect(await personOf(root, 'nina')).toEqual({
      username: 'nina',
      name: 'Nina Simone',
      email: 'nina@example.test',
      groups: ['staff'],
      disabled: false,
      source: 'file',
      totp: false,
      passkeys: 0,
    });
    expect((await list(root)).version).toBe(res.version);
    for (const username of ['NINA', 'uma']) {
      expect(await expectEnvelope(await postJson(gw, '/api/admin/users', { username }, { cookie: root }), 409)).toMatchObject({ code: 'user_exists' });
    }
    expect(audited).toContainEqual(expect.objectContaining({ event: 'user_created', username: 'nina', admin: 'root', fields: ['name', 'email', 'groups'] }));
  });

  it('updates name, e-mail and groups; an unknown person is user_not_found, one from USERS read_only_source', async () => {
    const res = await postJson(
      gw,
      '/api/admin/users/update',
      { username: 'tom', name: 'Tom Thumb', email: 'tom@example.test', groups: ['staff', 'ops'] },
      { cookie: root },
    );
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'user_updated', username: 'tom' });
    expect(await personOf(root, 'tom')).toMatchObject({ name: 'Tom Thumb', email: 'tom@example.test', groups: ['staff', 'ops'] });
    expect(readFileSync(gw.usersFile, 'utf8')).toContain('  - username: tom\n    password: "');
    expect(await expectEnvelope(await postJson(gw, '/api/admin/users/update', { username: 'zed', name: 'Z' }, { cookie: root }), 404)).toMatchObject({
      code: 'user_not_found',
    });
    for (const path of ['update', 'disable', 'enable', 'delete']) {
      const body = await expectEnvelope(await postJson(gw, `/api/admin/users/${path}`, { username: 'uma' }, { cookie: root }), 409);
      expect([path, body.code]).toEqual([path, 'read_only_source']);
    }
    expect((await personOf(root, 'uma'))?.source).toBe('users');
    expect(audited).toContainEqual(expect.objectContaining({ event: 'user_updated', username: 'tom', admin: 'root', fields: ['name', 'email', 'groups'] }));
  });

  it('answers invalid_fields 400 naming what is wrong, and writes nothing', async () => {
    const file = readFileSync(gw.usersFile, 'utf8');
    const bad = async (path: string, body: unknown) =>
      (await expectEnvelope(await postJson(gw, path, body, { cookie: root }), 400)) as { code: string; message: string };
    expect(await bad('/api/admin/users', { username: 'a:b' })).toMatchObject({ code: 'invalid_fields', message: expect.stringContaining('username') });
    expect(await bad('/api/admin/users', { username: 'x', groups: 'staff' })).toMatchObject({ message: expect.stringContaining('groups') });
    expect(await bad('/api/admin/users', { username: 'x', groups: ['a,b'] })).toMatchObject({ message: expect.stringContaining('groups') });
    expect(await bad('/api/admin/users', { username: 'x', email: 'not-mail' })).toMatchObject({ message: expect.stringContaining('email') });
    expect(await bad('/api/admin/users/update', { username: 'tom', name: 'x'.repeat(300) })).toMatchObject({ message: expect.stringContaining('name') });
    expect(await bad('/api/admin/users/disable', { username: 'tom', name: 'T' })).toMatchObject({ message: expect.stringContaining('name') });
    expect(await bad('/api/admin/users/delete', { username: 'tom', version: 'not hex' })).toMatchObject({ message: expect.stringContaining('version') });
    expect(await bad('/api/admin/users/enable', [])).toMatchObject({ code: 'invalid_fields' });
    expect(readFileSync(gw.usersFile, 'utf8')).toBe(file);
  });

  it('refuses users_file_changed when the file changed since the list was read, and keeps the hand edit', async () => {
    const { version } = await list(root);
    const hand = `${readFileSync(gw.usersFile, 'utf8')}# a hand edit\n`;
    writeFileSync(gw.usersFile, hand);
    const stale = await postJson(gw, '/api/admin/users/update', { username: 'ann', name: 'Ann', version }, { cookie: root });
    expect(await expectEnvelope(stale, 409)).toMatchObject({ code: 'users_file_changed' });
    expect(readFileSync(gw.usersFile, 'utf8')).toBe(hand);
    const fresh = await list(root);
    expect(fresh.version).not.toBe(version);
    const ok = await postJson(gw, '/api/admin/users/update', { username: 'ann', name: 'Ann', version: fresh.version }, { cookie: root });
    expect(await expectEnvelope(ok, 200)).toMatchObject({ code: 'user_updated' });
    expect(readFileSync(gw.usersFile, 'utf8')).toContain('# a hand edit\n');
  });

  it('disabling ends the person’s sessions at once; enabling lets them log in again', async () => {
    const tom = await login('tom');
    expect(await passes(tom)).toBe(200);
    const res = await postJson(gw, '/api/admin/users/disable', { username: 'tom' }, { cookie: root });
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'user_disabled', username: 'tom' });
    expect(await passes(tom)).toBe(401);
    expect((await postJson(gw, '/api/login', { username: 'tom', password: 'pw' })).status).toBe(401);
    expect(await personOf(root, 'tom')).toMatchObject({ disabled: true, source: 'file', name: 'Tom Thumb' });
    expect(await expectEnvelope(await postJson(gw, '/api/admin/users/enable', { username: 'tom' }, { cookie: root }), 200)).toMatchObject({
      code: 'user_enabled',
    });
    expect(await personOf(root, 'tom')).toMatchObject({ disabled: false });
    expect(await passes(await login('tom'))).toBe(200);
    expect(audited).toContainEqual(expect.objectContaining({ event: 'user_disabled', username: 'tom', admin: 'root' }));
    expect(audited).toContainEqual(expect.objectContaining({ event: 'user_enabled', username: 'tom', admin: 'root' }));
  });

  it('deleting removes the entry and ends the person’s sessions at once', async () => {
    const ann = await login('ann');
    expect(await passes(ann)).toBe(200);
    const res = await postJson(gw, '/api/admin/users/delete', { username: 'ann' }, { cookie: root });
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'user_deleted', username: 'ann' });
    expect(await passes(ann)).toBe(401);
    expect(await personOf(root, 'ann')).toBeUndefined();
    expect(readFileSync(gw.usersFile, 'utf8')).not.toContain('username: ann');
    expect(readFileSync(gw.usersFile, 'utf8')).toMatch(
      /^# People of the test gateway; the console must keep this comment\.\nusers:\n {2}- username: root {3}# the first/,
    );
    expect(audited).toContainEqual(expect.objectContaining({ event: 'user_deleted', username: 'ann', admin: 'root' }));
  });

  it('answers last_admin to an administrator taking their own access, and lets them change another administrator', async () => {
    for (const [path, body] of [
      ['disable', { username: 'root' }],
      ['delete', { username: 'ROOT' }],
      ['update', { username: 'root', groups: ['staff'] }],
    ] as const) {
      const res = await expectEnvelope(await postJson(gw, `/api/admin/users/${path}`, body, { cookie: root }), 409);
      expect([path, res.code]).toEqual([path, 'last_admin']);
    }
    expect(await expectEnvelope(await postJson(gw, '/api/admin/users/update', { username: 'root', name: 'Root' }, { cookie: root }), 200)).toMatchObject({
      code: 'user_updated',
    });
    expect(await expectEnvelope(await postJson(gw, '/api/admin/users/disable', { username: 'pam' }, { cookie: root }), 200)).toMatchObject({
      code: 'user_disabled',
    });
    expect(await personOf(root, 'root')).toMatchObject({ disabled: false, groups: ['admins'] });
  });

  it('refuses a cross-site change and a form post, writing nothing', async () => {
    const file = readFileSync(gw.usersFile, 'utf8');
    const crossSite = await postJson(gw, '/api/admin/users', { username: 'eve' }, { cookie: root, 'sec-fetch-site': 'cross-site' });
    expect(await expectEnvelope(crossSite, 403)).toMatchObject({ code: 'cross_site_request' });
    const form = await postJson(gw, '/api/admin/users/delete', 'username=tom', {
      cookie: root,
      'content-type': 'application/x-www-form-urlencoded',
      origin: 'https://evil.example',
    });
    expect(await expectEnvelope(form, 403)).toMatchObject({ code: 'cross_site_request' });
    const sameSiteForm = await postJson(gw, '/api/admin/users/delete', 'username=tom', { cookie: root, 'content-type': 'application/x-www-form-urlencoded' });
    expect(await expectEnvelope(sameSiteForm, 415)).toMatchObject({ code: 'unsupported_media_type' });
    expect(readFileSync(gw.usersFile, 'utf8')).toBe(file);
  });
});
