import { generate } from 'otplib';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { expectEnvelope, postJson } from '../../support/http';
import { cookieFrom, startGatewayWithUsersFile, type RunningGateway } from '../../support/server';

// Issue 36: the audit trail through the real server, kept in the embedded database (DATA_DIR).
const HASH = hashOf('pw');
const USERS_YAML = `users:
  - username: root
    password: "${HASH}"
    groups: [admins]
    totp_secret: ${TOTP_SECRET}
  - username: ann
    password: "${HASH}"
`;
const data = tempDataDir();
let now = Date.now();
let gw: RunningGateway;

beforeAll(async () => {
  gw = await startGatewayWithUsersFile(USERS_YAML, { ADMIN_GROUPS: 'admins', DATA_DIR: data.dir }, { [TOKENS.Clock]: { now: () => now } });
});
afterAll(async () => {
  await gw.close();
  data.remove();
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

interface Page {
  readonly events: Array<Record<string, unknown>>;
  readonly next: string | null;
}

async function audit(cookie: string, query: string): Promise<Page> {
  const body = await expectEnvelope(await fetch(`${gw.url}/api/admin/audit${query}`, { headers: { cookie } }), 200);
  expect(body.code).toBe('audit');
  return body as unknown as Page;
}

/** The recorder writes in batches (every 200 ms): asks until `ready` holds, for a few seconds at most. */
async function eventually(cookie: string, query: string, ready: (page: Page) => boolean): Promise<Page> {
  for (let i = 0; ; i += 1) {
    const page = await audit(cookie, query);
    if (ready(page) || i >= 60) return page;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the audit trail in the admin console (issue 36)', () => {
  it('shows a login, newest first, filtered by person and event, paged with the cursor', async () => {
    const root = await login('root', true);
    for (let i = 0; i < 3; i += 1) {
      now += 1000;
      await login('ann', false);
    }
    const first = await eventually(root, '?username=ann&event=login_succeeded&limit=2', (p) => p.events.length === 2 && p.next !== null);
    expect(first.events[0]).toEqual({
      id: expect.any(String),
      time: new Date(now).toISOString(),
      event: 'login_succeeded',
      username: 'ann',
      login: null,
      admin: null,
      ip: expect.any(String),
      data: expect.objectContaining({ event: 'login_succeeded', username: 'ann', method: 'password' }),
    });
    expect(Date.parse(String(first.events[0].time))).toBeGreaterThan(Date.parse(String(first.events[1].time)));
    const second = await audit(root, `?username=ann&event=login_succeeded&limit=2&cursor=${encodeURIComponent(first.next!)}`);
    expect(second.events.map((e) => e.time)).toEqual([new Date(now - 2000).toISOString()]);
    expect(second.next).toBeNull();
    // Another person's events and other events stay out; a time window narrows.
    expect((await audit(root, '?username=ann')).events.every((e) => e.username === 'ann')).toBe(true);
    const since = encodeURIComponent(new Date(now - 1000).toISOString());
    expect((await audit(root, `?username=ann&since=${since}`)).events.map((e) => e.time)).toEqual([
      new Date(now).toISOString(),
      new Date(now - 1000).toISOString(),
    ]);
    const before = encodeURIComponent(new Date(now - 1000).toISOString());
    expect((await audit(root, `?username=ann&event=login_succeeded&before=${before}`)).events.map((e) => e.time)).toEqual([new Date(now - 2000).toISOString()]);
  });

  it('shows a failed login under the name that was typed, and never the password', async () => {
    const root = await login('root', true);
    expect((await postJson(gw, '/api/login', { username: 'ann', password: 'not-the-password' })).status).toBe(401);
    const page = await eventually(root, '?username=ann&event=login_failed', (p) => p.events.length > 0);
    expect(page.events[0]).toMatchObject({ event: 'login_failed', login: 'ann', username: null });
    expect(JSON.stringify(page)).not.toContain('not-the-password');
  });

  it('exports the matching events as JSON lines, as an attachment, and audits the export', async () => {
    const root = await login('root', true);
    await eventually(root, '?username=ann&event=login_succeeded', (p) => p.events.length >= 3);
    const res = await fetch(`${gw.url}/api/admin/audit/export?username=ann&event=login_succeeded`, { headers: { cookie: root } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="portcullis-audit-\d{4}-\d{2}-\d{2}\.jsonl"$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.every((l) => l.event === 'login_succeeded' && l.username === 'ann')).toBe(true);
    const listed = await audit(root, '?username=ann&event=login_succeeded&limit=500');
    expect(lines.map((l) => l.id)).toEqual(listed.events.map((e) => e.id));
    const exported = await eventually(root, '?username=root&event=admin_audit_exported', (p) => p.events.length > 0);
    expect(exported.events[0]).toMatchObject({ admin: 'root', username: null });
  });

  it('answers 400 invalid_fields for a bad filter, limit or cursor', async () => {
    const root = await login('root', true);
    const bad = async (path: string) =>
      (await expectEnvelope(await fetch(`${gw.url}${path}`, { headers: { cookie: root } }), 400)) as { code: string; fields: string[] };
    expect(await bad('/api/admin/audit?since=yesterday')).toMatchObject({ code: 'invalid_fields', fields: ['since'] });
    expect(await bad('/api/admin/audit?before=2026-13-45T99:00Z')).toMatchObject({ fields: ['before'] });
    expect(await bad('/api/admin/audit?limit=0')).toMatchObject({ fields: ['limit'] });
    expect(await bad('/api/admin/audit?limit=501')).toMatchObject({ fields: ['limit'] });
    expect(await bad('/api/admin/audit?limit=ten')).toMatchObject({ fields: ['limit'] });
    expect(await bad('/api/admin/audit?cursor=not-a-cursor')).toMatchObject({ fields: ['cursor'] });
    expect(await bad('/api/admin/audit?event=Login%20Succeeded')).toMatchObject({ fields: ['event'] });
    expect(await bad('/api/admin/audit?username=a&username=b')).toMatchObject({ fields: ['username'] });
    expect(await bad('/api/admin/audit/export?limit=5')).toMatchObject({ fields: ['limit'] });
    expect((await fetch(`${gw.url}/api/admin/audit?limit=500&since=2026-01-01`, { headers: { cookie: root } })).status).toBe(200);
  });
});
