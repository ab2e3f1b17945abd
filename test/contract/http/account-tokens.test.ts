import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOKENS } from '../../../src/composition/tokens';
import { isTokenShaped } from '../../../src/domain/access-token';
import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { RecordingAuditLog } from '../../support/fakes';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, postJson } from '../../support/http';
import { startGateway, startGatewayWithUsersFile, type RunningGateway } from '../../support/server';

const dir = mkdtempSync(join(tmpdir(), 'portcullis-tokens-'));
const rulesFile = join(dir, 'access.yaml');
writeFileSync(
  rulesFile,
  'default_policy: allow_authenticated\napps:\n  grafana:\n    domain: [grafana.example.test]\n  wiki:\n    domain: [wiki.example.test]\n',
);
const USERS = `alice:${hashOf('alice-pw')},bob:${hashOf('bob-pw')},dave:${hashOf('dave-pw')},carol:${hashOf('carol-pw')}:${TOTP_SECRET}`;

describe('the token API: /api/account/tokens and /api/account/tokens/revoke', () => {
  let gw: RunningGateway;
  const audit = new RecordingAuditLog();
  beforeAll(async () => {
    gw = await startGateway({ USERS, ACCESS_CONFIG: rulesFile, TOKEN_MAX_LIFETIME: '30' }, { [TOKENS.AuditLog]: audit });
  });
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const list = (cookie?: string): Promise<Response> => fetch(`${gw.url}/api/account/tokens`, { headers: cookie === undefined ? {} : { cookie } });
  const create = (cookie: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    postJson(gw, '/api/account/tokens', body, { cookie, ...headers });
  const revoke = (cookie: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    postJson(gw, '/api/account/tokens/revoke', body, { cookie, ...headers });
  const tokensOf = async (cookie: string): Promise<Array<Record<string, unknown>>> =>
    (await expectEnvelope(await list(cookie), 200)).tokens as Array<Record<string, unknown>>;

  it('creates a token (the secret shown once), lists it without the secret, and revokes it', async () => {
    const cookie = await loginCookie(gw, 'alice', 'alice-pw');
    const res = await create(cookie, { name: 'grafana backup', apps: ['grafana'], expiresInDays: 7 });
    const created = await expectEnvelope(res, 201);
    expect(created).toMatchObject({
      code: 'token_created',
      message: 'Token created: copy it now, it is not shown again',
      name: 'grafana backup',
      apps: ['grafana'],
    });
    const token = String(created.token);
    expect(isTokenShaped(token)).toBe(true);
    expect(Date.parse(String(created.expiresAt)) - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);

    const listed = await tokensOf(cookie);
    expect(listed).toEqual([
      {
        id: created.id,
        name: 'grafana backup',
        apps: ['grafana'],
        createdAt: created.createdAt,
        lastUsedAt: null,
        expiresAt: created.expiresAt,
        revokedAt: null,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(token);

    const forwardAuth = (app: string): Promise<Response> =>
      askForwardAuth(gw, 'traefik', { 'portcullis-token': token, accept: 'application/json', ...forwardedFor(`https://${app}.example.test/`) });
    const passed = await forwardAuth('grafana');
    expect(passed.status).toBe(200);
    expect(passed.headers.get('remote-user')).toBe('alice');
    expect((await forwardAuth('wiki')).status).toBe(403);

    const revoked = await revoke(cookie, { id: created.id });
    expect(await expectEnvelope(revoked, 200)).toEqual({ status: 200, code: 'token_revoked', message: 'Token revoked' });
    expect(typeof (await tokensOf(cookie))[0].revokedAt).toBe('string');
    expect(await expectEnvelope(await revoke(cookie, { id: created.id }), 404)).toMatchObject({ code: 'token_not_found' });
    // Answered only once stored: the very next request with the token is refused.
    expect((await forwardAuth('grafana')).status).toBe(401);

    const events = audit.events.filter((e) => e.event === 'token_created' || e.event === 'token_revoked');
    expect(events).toEqual([
      expect.objectContaining({ event: 'token_created', username: 'alice', id: created.id, apps: ['grafana'], by: 'account' }),
      expect.objectContaining({ event: 'token_revoked', username: 'alice', id: created.id, by: 'account' }),
    ]);
    expect(JSON.stringify(audit.events)).not.toContain(token);
  });

  it('gives a token without an expiry TOKEN_MAX_LIFETIME, and refuses bad fields with 400 naming them', async () => {
    const cookie = await loginCookie(gw, 'alice', 'alice-pw');
    const created = await expectEnvelope(await create(cookie, { name: 'everything' }), 201);
    expect(created.apps).toBeNull();
    expect(Math.abs(Date.parse(String(created.expiresAt)) - Date.now() - 30 * 86_400_000)).toBeLessThan(60_000);
    const cases: Array<[unknown, string[]]> = [
      [{}, ['name']],
      [{ name: 'x'.repeat(65) }, ['name']],
      [{ name: 'ci', expiresInDays: 31 }, ['expiresInDays']],
      [{ name: 'ci', expiresInDays: '7' }, ['expiresInDays']],
      [{ name: 'ci', apps: ['no-such-app'] }, ['apps']],
      [{ name: 'ci', apps: [] }, ['apps']],
      [[], ['name']],
    ];
    for (const [body, fields] of cases) expect(await expectEnvelope(await create(cookie, body), 400)).toMatchObject({ code: 'invalid_fields', fields });
    expect((await create(cookie, '{"name":')).status).toBe(400);
    for (const body of [{}, { id: 7 }, { id: 'x'.repeat(500) }, []])
      expect(await expectEnvelope(await revoke(cookie, body), 400)).toMatchObject({ code: 'invalid_fields', fields: ['id'] });
  });

  it('refuses the 51st live token with 409 too_many_tokens', async () => {
    const cookie = await loginCookie(gw, 'dave', 'dave-pw');
    for (let i = 0; i < 50; i += 1) expect((await create(cookie, { name: `t${i}` })).status).toBe(201);
    expect(await expectEnvelope(await create(cookie, { name: 'one more' }), 409)).toMatchObject({ code: 'too_many_tokens' });
    const [newest] = await tokensOf(cookie);
    expect((await revoke(cookie, { id: newest.id })).status).toBe(200);
    expect((await create(cookie, { name: 'in its place' })).status).toBe(201);
  });

  describe('attacks', () => {
    it('never lists or revokes another account’s token: the same 404 as an unknown id', async () => {
      const bobs = await loginCookie(gw, 'bob', 'bob-pw');
      const alices = await loginCookie(gw, 'alice', 'alice-pw');
      const made = await expectEnvelope(await create(bobs, { name: 'bob’s' }), 201);
      expect((await tokensOf(alices)).map((t) => t.id)).not.toContain(made.id);
      expect(await expectEnvelope(await revoke(alices, { id: made.id }), 404)).toEqual({
        status: 404,
        code: 'token_not_found',
        message: 'No such live token of your account',
      });
      expect((await tokensOf(bobs)).find((t) => t.id === made.id)).toMatchObject({ revokedAt: null });
    });

    it('refuses anonymous callers, HTTP Basic and a session that still owes its TOTP code', async () => {
      const pending = await loginCookie(gw, 'carol', 'carol-pw');
      const basic = { authorization: `Basic ${Buffer.from('alice:alice-pw').toString('base64')}` };
      expect(await expectEnvelope(await list(), 401)).toMatchObject({ code: 'session_required' });
      expect(await expectEnvelope(await list(pending), 401)).toMatchObject({ code: 'session_required' });
      expect(await expectEnvelope(await fetch(`${gw.url}/api/account/tokens`, { headers: basic }), 401)).toMatchObject({ code: 'session_required' });
      expect(await expectEnvelope(await create(pending, { name: 'ci' }), 401)).toMatchObject({ code: 'session_required' });
      expect(await expectEnvelope(await postJson(gw, '/api/account/tokens', { name: 'ci' }, basic), 401)).toMatchObject({ code: 'session_required' });
      expect(await expectEnvelope(await revoke(pending, { id: 'x' }), 401)).toMatchObject({ code: 'session_required' });
    });

    it('refuses a cross-site post (a form from another site, a same-site sibling, a foreign Origin) and makes nothing', async () => {
      const cookie = await loginCookie(gw, 'alice', 'alice-pw');
      const before = (await tokensOf(cookie)).length;
      const form = await fetch(`${gw.url}/api/account/tokens`, {
        method: 'POST',
        headers: { cookie, 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://evil.example.net', 'Sec-Fetch-Site': 'cross-site' },
        body: 'name=evil',
      });
      expect(await expectEnvelope(form, 403)).toMatchObject({ code: 'cross_site_request' });
      expect(await expectEnvelope(await create(cookie, { name: 'evil' }, { 'Sec-Fetch-Site': 'same-site' }), 403)).toMatchObject({
        code: 'cross_site_request',
      });
      expect(await expectEnvelope(await create(cookie, { name: 'evil' }, { Origin: 'https://evil.example.net' }), 403)).toMatchObject({
        code: 'cross_site_request',
      });
      const [mine] = await tokensOf(cookie);
      expect(await expectEnvelope(await revoke(cookie, { id: mine.id }, { Origin: 'https://evil.example.net' }), 403)).toMatchObject({
        code: 'cross_site_request',
      });
      // No sign of another site, but no JSON either: the wrong type.
      expect((await fetch(`${gw.url}/api/account/tokens`, { method: 'POST', headers: { cookie } })).status).toBe(415);
      expect((await fetch(`${gw.url}/api/account/tokens/revoke`, { method: 'POST', headers: { cookie } })).status).toBe(415);
      const after = await tokensOf(cookie);
      expect(after).toHaveLength(before);
      expect(after.find((t) => t.id === mine.id)).toMatchObject({ revokedAt: null });
    });

    it('answers other methods with 405 naming the allowed ones', async () => {
      const res = await fetch(`${gw.url}/api/account/tokens/revoke`, { method: 'GET' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    });
  });
});

describe('the token API with TOKENS=false', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS, TOKENS: 'false' });
  });
  afterAll(() => gw.close());

  it('has no token route: 404 for every method, as for any unknown path', async () => {
    const cookie = await loginCookie(gw, 'alice', 'alice-pw');
    expect(await expectEnvelope(await fetch(`${gw.url}/api/account/tokens`, { headers: { cookie } }), 404)).toMatchObject({ code: 'not_found' });
    expect(await expectEnvelope(await postJson(gw, '/api/account/tokens', { name: 'ci' }, { cookie }), 404)).toMatchObject({ code: 'not_found' });
    expect(await expectEnvelope(await postJson(gw, '/api/account/tokens/revoke', { id: 'x' }, { cookie }), 404)).toMatchObject({ code: 'not_found' });
    expect((await fetch(`${gw.url}/api/account/tokens`, { method: 'DELETE', headers: { cookie } })).status).toBe(404);
  });
});

describe('a service account of the users file', () => {
  let gw: RunningGateway & { readonly usersFile: string };
  beforeAll(async () => {
    gw = await startGatewayWithUsersFile(
      `users:\n  - username: backup-bot\n    service: true\n    groups: [backups]\n  - username: alice\n    password: "${hashOf('alice-pw')}"\n`,
    );
  });
  afterAll(() => gw.close());

  it('cannot log in, with the form or HTTP Basic, whatever it sends: answered as a wrong password', async () => {
    for (const password of ['', 'service-account', 'x']) {
      const form = await postJson(gw, '/api/login', { username: 'backup-bot', password });
      const wrong = await postJson(gw, '/api/login', { username: 'alice', password: `${password}-wrong` });
      if (password === '') expect(form.status).toBe(400);
      else expect(await expectEnvelope(form, 401)).toEqual(await expectEnvelope(wrong, 401));
      const basic = await askForwardAuth(gw, 'traefik', {
        authorization: `Basic ${Buffer.from(`backup-bot:${password}`).toString('base64')}`,
        accept: 'application/json',
        ...forwardedFor('https://app.example.test/'),
      });
      expect(basic.status).toBe(401);
    }
  });
});
