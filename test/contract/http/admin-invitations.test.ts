import { readFileSync } from 'node:fs';
import { generate } from 'otplib';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { expectEnvelope, postJson } from '../../support/http';
import { cookieFrom, startGatewayWithUsersFile, type RunningGateway } from '../../support/server';

// Issue 36: invitations and password resets through the real server and a real users file.
const HASH = hashOf('pw');
const USERS_YAML = `users:
  # the administrators
  - username: root
    password: "${HASH}"
    groups: [admins]
    totp_secret: ${TOTP_SECRET}
  - username: ann
    password: "${HASH}"
    groups: [staff]
  - username: carol
    passkey_only: true
    groups: [staff]
  - username: dan
    passkey_only: true
`;

let now = Date.now();
let gw: RunningGateway & { readonly usersFile: string };

beforeAll(async () => {
  gw = await startGatewayWithUsersFile(USERS_YAML, { ADMIN_GROUPS: 'admins' }, { [TOKENS.Clock]: { now: () => now } });
});
afterAll(async () => {
  await gw.close();
});

const sessionOf = (res: Response): string => `portcullis-session=${cookieFrom(res, 'portcullis-session')?.value}`;

async function rootSession(): Promise<string> {
  const res = await postJson(gw, '/api/login', { username: 'root', password: 'pw' });
  now += 30_000;
  const code = await generate({ secret: TOTP_SECRET, epoch: Math.floor(now / 1000) });
  const t = await postJson(gw, '/api/totp', { code }, { cookie: sessionOf(res) });
  expect(t.status).toBe(200);
  return sessionOf(t);
}

const loginAs = (username: string, password: string) => postJson(gw, '/api/login', { username, password });
const codeOf = (link: string): string => link.slice(link.indexOf('#') + 1);

describe('POST /api/admin/invitations and POST /api/invitations/password (issue 36)', () => {
  it('resets a password: the link sets it once, the person logs in with it, their other sessions end', async () => {
    const root = await rootSession();
    const old = await loginAs('ann', 'pw');
    const user = async () => (await fetch(`${gw.url}/api/user`, { headers: { cookie: sessionOf(old) } })).json();
    expect(await user()).toMatchObject({ code: 'authenticated', username: 'ann' });
    const made = await expectEnvelope(await postJson(gw, '/api/admin/invitations', { username: 'ANN', kind: 'password' }, { cookie: root }), 200);
    expect(made).toMatchObject({ code: 'invitation', username: 'ann', kind: 'password', expiresAt: new Date(now + 72 * 3_600_000).toISOString() });
    const link = String(made.link);
    expect(link).toMatch(/^https:\/\/auth\.example\.test\/invite#[A-Za-z0-9_-]{40,}$/);
    expect((await fetch(`${gw.url}/invite`)).status).toBe(200);

    const weak = await postJson(gw, '/api/invitations/password', { code: codeOf(link), password: 'short' });
    expect(await expectEnvelope(weak, 400)).toMatchObject({ code: 'weak_password' });
    const set = await postJson(gw, '/api/invitations/password', { code: codeOf(link), password: 'a brand new password' });
    expect(await expectEnvelope(set, 200)).toMatchObject({ code: 'password_set', username: 'ann' });
    expect(readFileSync(gw.usersFile, 'utf8')).toContain('# the administrators');

    expect((await loginAs('ann', 'pw')).status).toBe(401);
    expect((await loginAs('ann', 'a brand new password')).status).toBe(200);
    expect(await user()).toMatchObject({ code: 'unauthorized', isLoggedIn: false });

    const again = await postJson(gw, '/api/invitations/password', { code: codeOf(link), password: 'yet another password' });
    expect(await expectEnvelope(again, 400)).toMatchObject({ code: 'invitation_invalid' });
    expect((await loginAs('ann', 'a brand new password')).status).toBe(200);
  });

  it('invites a passkey-only person to choose a password: they log in with it', async () => {
    const root = await rootSession();
    const made = await expectEnvelope(await postJson(gw, '/api/admin/invitations', { username: 'carol', kind: 'password', hours: 1 }, { cookie: root }), 200);
    const set = await postJson(gw, '/api/invitations/password', { code: codeOf(String(made.link)), password: 'carol chose this one' });
    expect(set.status).toBe(200);
    const login = await loginAs('carol', 'carol chose this one');
    expect(await expectEnvelope(login, 200)).toMatchObject({ code: 'logged_in' });
  });

  it('makes a passkey link for a passkey-only person: the first-passkey page redeems it once, a password link never', async () => {
    const root = await rootSession();
    const made = await expectEnvelope(await postJson(gw, '/api/admin/invitations', { username: 'dan', kind: 'passkey' }, { cookie: root }), 200);
    expect(String(made.link)).toMatch(/^https:\/\/auth\.example\.test\/enrol#[A-Za-z0-9_-]{40,}$/);
    const code = codeOf(String(made.link));
    const asPassword = await postJson(gw, '/api/invitations/password', { code, password: 'not for this kind of link' });
    expect(await expectEnvelope(asPassword, 400)).toMatchObject({ code: 'invitation_invalid' });
    const started = await postJson(gw, '/api/passkeys/enrolment/options', { code });
    expect(await expectEnvelope(started, 200)).toMatchObject({ code: 'passkey_options', username: 'dan' });
    const again = await postJson(gw, '/api/passkeys/enrolment/options', { code });
    expect(again.status).toBe(400);
  });

  it('refuses an expired link, and one of two concurrent redemptions', async () => {
    const root = await rootSession();
    const made = await expectEnvelope(await postJson(gw, '/api/admin/invitations', { username: 'ann', kind: 'password', hours: 1 }, { cookie: root }), 200);
    now += 3_600_000;
    const late = await postJson(gw, '/api/invitations/password', { code: codeOf(String(made.link)), password: 'too late for this one' });
    expect(await expectEnvelope(late, 400)).toMatchObject({ code: 'invitation_invalid' });

    const root2 = await rootSession();
    const twice = await expectEnvelope(await postJson(gw, '/api/admin/invitations', { username: 'ann', kind: 'password' }, { cookie: root2 }), 200);
    const tries = await Promise.all(
      ['first concurrent pass', 'second concurrent pass'].map((password) =>
        postJson(gw, '/api/invitations/password', { code: codeOf(String(twice.link)), password }),
      ),
    );
    expect(tries.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it('answers the invitation route with stable codes', async () => {
    const root = await rootSession();
    const ask = (body: unknown) => postJson(gw, '/api/admin/invitations', body, { cookie: root });
    expect(await expectEnvelope(await ask({ username: 'zed', kind: 'password' }), 404)).toMatchObject({ code: 'user_not_found' });
    expect(await expectEnvelope(await ask({ username: 'ann', kind: 'passkey' }), 409)).toMatchObject({ code: 'not_passkey_only' });
    expect(await expectEnvelope(await ask({ username: 'ann', kind: 'mail', hours: 900 }), 400)).toMatchObject({
      code: 'invalid_fields',
      fields: ['kind', 'hours'],
    });
    const crossSite = await postJson(gw, '/api/admin/invitations', { username: 'ann', kind: 'password' }, { cookie: root, 'sec-fetch-site': 'cross-site' });
    expect(await expectEnvelope(crossSite, 403)).toMatchObject({ code: 'cross_site_request' });
    const setCrossSite = await postJson(
      gw,
      '/api/invitations/password',
      { code: 'A'.repeat(48), password: 'a long enough one' },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(await expectEnvelope(setCrossSite, 403)).toMatchObject({ code: 'cross_site_request' });
  });

  it('removes a TOTP or passkeys only where there are some, and never the administrator’s own last one', async () => {
    const root = await rootSession();
    const totp = (username: string) => postJson(gw, '/api/admin/users/totp/remove', { username }, { cookie: root });
    expect(await expectEnvelope(await totp('root'), 409)).toMatchObject({ code: 'totp_set_by_administrator' });
    expect(await expectEnvelope(await totp('ann'), 409)).toMatchObject({ code: 'totp_not_enrolled' });
    expect(await expectEnvelope(await totp('zed'), 404)).toMatchObject({ code: 'user_not_found' });
    const keys = await postJson(gw, '/api/admin/users/passkeys/remove', { username: 'root' }, { cookie: root });
    expect(await expectEnvelope(keys, 404)).toMatchObject({ code: 'passkey_not_found' });
  });
});
