import { readdirSync, readFileSync } from 'node:fs';
import { basic, hashOf, TOTP_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, postJson, SESSION_COOKIE, totpCode, wrongTotpCode } from '../../support/http';
import { cookieFrom, startGateway, type RunningGateway } from '../../support/server';
import { enrolTotp } from '../../support/totp-enrolment';

const APP = 'https://app.example.test/';
const now = (): number => Math.floor(Date.now() / 1000);

describe('self-enrolled TOTP: /api/account/totp*', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({
      USERS:
        ['alice', 'bob', 'dave', 'erin', 'fred', 'gina', 'hank', 'ivan'].map((u) => `${u}:${hashOf(`${u}-pw`)}`).join(',') +
        `,carol:${hashOf('carol-pw')}:${TOTP_SECRET}`,
      BASIC_CACHE_TTL_SECONDS: '60',
    });
  });
  afterAll(() => gw.close());

  const live = async (cookie: string): Promise<boolean> => (await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status === 200;
  const state = async (cookie: string): Promise<unknown> =>
    (await expectEnvelope(await fetch(`${gw.url}/api/account/totp`, { headers: { cookie } }), 200)).state;
  const basicAuth = (user: string): Promise<Response> => askForwardAuth(gw, 'traefik', { authorization: basic(user, `${user}-pw`), ...forwardedFor(APP) });

  describe('attacks', () => {
    it('HTTP Basic is refused for an account that set up its own TOTP, exactly as for an administrator’s TOTP account', async () => {
      // Cached first: a verdict remembered from before the enrolment must not ride on.
      expect((await basicAuth('alice')).status).toBe(200);
      await enrolTotp(gw, await loginCookie(gw, 'alice', 'alice-pw'), 'alice-pw');
      const afterEnrolment = await basicAuth('alice');
      const adminTotp = await askForwardAuth(gw, 'traefik', { authorization: basic('carol', 'carol-pw'), ...forwardedFor(APP) });
      expect(afterEnrolment.status).toBe(401);
      expect(afterEnrolment.status).toBe(adminTotp.status);
      expect(await afterEnrolment.text()).toBe(await adminTotp.text());
    });

    it('a password login of an enrolled account only gets a pending session, which forward auth refuses until the code', async () => {
      await enrolTotp(gw, await loginCookie(gw, 'bob', 'bob-pw'), 'bob-pw');
      const res = await postJson(gw, '/api/login', { email: 'bob', password: 'bob-pw' });
      expect(await expectEnvelope(res, 200)).toMatchObject({ totpPending: 'true' });
      const pending = `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`;
      expect(await live(pending)).toBe(false);
    });

    it('every other session of the account ends at enrolment, and a cookie from before stays dead after the TOTP is removed', async () => {
      const other = await loginCookie(gw, 'dave', 'dave-pw');
      const { secret, cookie } = await enrolTotp(gw, await loginCookie(gw, 'dave', 'dave-pw'), 'dave-pw');
      expect(await live(other)).toBe(false);
      expect(await live(cookie)).toBe(true);
      const removed = await postJson(gw, '/api/account/totp/remove', { code: await totpCode(secret, now() + 30) }, { cookie });
      expect(await expectEnvelope(removed, 200)).toMatchObject({ code: 'totp_removed' });
      const after = `${SESSION_COOKIE}=${cookieFrom(removed, SESSION_COOKIE)?.value}`;
      expect(await live(after)).toBe(true);
      expect(await live(other)).toBe(false);
      expect(await live(cookie)).toBe(false);
    });

    it('a session alone (a cookie taken from the person) cannot set up a code that would lock its owner out: the password is asked', async () => {
      const cookie = await loginCookie(gw, 'ivan', 'ivan-pw');
      const setup = await expectEnvelope(await postJson(gw, '/api/account/totp/setup', {}, { cookie }), 200);
      const code = await totpCode(String(setup.secret));
      const without = await postJson(gw, '/api/account/totp/confirm', { enrolment: setup.enrolment, code }, { cookie });
      expect(await expectEnvelope(without, 400)).toMatchObject({ code: 'invalid_fields', fields: ['password'] });
      const wrong = await postJson(gw, '/api/account/totp/confirm', { enrolment: setup.enrolment, code, password: 'guess' }, { cookie });
      expect(await expectEnvelope(wrong, 401)).toMatchObject({ code: 'invalid_credentials' });
      expect(await state(cookie)).toBe('none');
      expect((await basicAuth('ivan')).status).toBe(200);
    });

    it('a pending session (password only) can neither start nor confirm a set-up', async () => {
      const res = await postJson(gw, '/api/login', { email: 'carol', password: 'carol-pw' });
      const pending = `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`;
      expect(await expectEnvelope(await postJson(gw, '/api/account/totp/setup', {}, { cookie: pending }), 401)).toMatchObject({ code: 'not_logged_in' });
    });

    it('an administrator’s TOTP stays authoritative: shown as such, no set-up, no removal', async () => {
      const res = await postJson(gw, '/api/login', { email: 'carol', password: 'carol-pw' });
      const pending = `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`;
      const full = await postJson(gw, '/api/totp', { code: await totpCode(TOTP_SECRET, now() + 30) }, { cookie: pending });
      const cookie = `${SESSION_COOKIE}=${cookieFrom(full, SESSION_COOKIE)?.value}`;
      expect(await state(cookie)).toBe('administrator');
      expect(await expectEnvelope(await postJson(gw, '/api/account/totp/setup', {}, { cookie }), 409)).toMatchObject({ code: 'totp_set_by_administrator' });
      const remove = await postJson(gw, '/api/account/totp/remove', { code: await totpCode(TOTP_SECRET) }, { cookie });
      expect(await expectEnvelope(remove, 409)).toMatchObject({ code: 'totp_set_by_administrator' });
    });

    it('an enrolment token of one session does not confirm in another, and a wrong first code stores nothing', async () => {
      const first = await loginCookie(gw, 'erin', 'erin-pw');
      const second = await loginCookie(gw, 'erin', 'erin-pw');
      const setup = await expectEnvelope(await postJson(gw, '/api/account/totp/setup', {}, { cookie: first }), 200);
      const moved = await postJson(
        gw,
        '/api/account/totp/confirm',
        { enrolment: setup.enrolment, code: await totpCode(String(setup.secret)), password: 'erin-pw' },
        { cookie: second },
      );
      expect(await expectEnvelope(moved, 400)).toMatchObject({ code: 'enrolment_invalid' });
      const wrong = await postJson(
        gw,
        '/api/account/totp/confirm',
        { enrolment: setup.enrolment, code: await wrongTotpCode(String(setup.secret)), password: 'erin-pw' },
        { cookie: first },
      );
      expect(await expectEnvelope(wrong, 401)).toMatchObject({ code: 'totp_invalid' });
      expect(await state(first)).toBe('none');
      expect((await basicAuth('erin')).status).toBe(200);
    });

    it('removal needs a current code: a session alone cannot drop the second factor', async () => {
      const { secret, cookie } = await enrolTotp(gw, await loginCookie(gw, 'fred', 'fred-pw'), 'fred-pw');
      const wrong = await postJson(gw, '/api/account/totp/remove', { code: await wrongTotpCode(secret) }, { cookie });
      expect(await expectEnvelope(wrong, 401)).toMatchObject({ code: 'totp_invalid' });
      expect(await state(cookie)).toBe('enrolled');
      expect((await basicAuth('fred')).status).toBe(401);
    });

    it('refuses a cross-site post and a form body, and answers bad fields with 400, never a 500', async () => {
      const cookie = await loginCookie(gw, 'gina', 'gina-pw');
      const cross = await postJson(gw, '/api/account/totp/setup', {}, { cookie, origin: 'https://evil.example.net', 'sec-fetch-site': 'cross-site' });
      expect(await expectEnvelope(cross, 403)).toMatchObject({ code: 'totp_cross_site' });
      const foreign = await postJson(gw, '/api/account/totp/setup', {}, { cookie, origin: 'https://evil.example.net' });
      expect(await expectEnvelope(foreign, 403)).toMatchObject({ code: 'totp_cross_site' });
      const form = await fetch(`${gw.url}/api/account/totp/confirm`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        body: 'code=123456',
      });
      expect(await expectEnvelope(form, 415)).toMatchObject({ code: 'unsupported_media_type' });
      for (const body of [
        {},
        { enrolment: 7, code: '123456', password: 'x' },
        { enrolment: 'x', code: 'abc', password: 'x' },
        { enrolment: 'x', code: '123456', password: 7 },
        [],
      ]) {
        expect(await expectEnvelope(await postJson(gw, '/api/account/totp/confirm', body, { cookie }), 400)).toMatchObject({ code: 'invalid_fields' });
      }
      expect(
        await expectEnvelope(
          await postJson(gw, '/api/account/totp/confirm', { enrolment: 'v1.garbage', code: '123456', password: 'gina-pw' }, { cookie }),
          400,
        ),
      ).toMatchObject({
        code: 'enrolment_invalid',
      });
    });
  });

  it('the set-up answer carries the secret, its otpauth URI and a QR path, and is not cached', async () => {
    const cookie = await loginCookie(gw, 'hank', 'hank-pw');
    expect(await state(cookie)).toBe('none');
    const res = await postJson(gw, '/api/account/totp/setup', {}, { cookie });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await expectEnvelope(res, 200);
    expect(body.secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(String(body.uri)).toContain(`secret=${String(body.secret)}`);
    expect(body.qr).toMatchObject({ size: expect.any(Number), path: expect.stringMatching(/^M\d/) });
    const { cookie: next, body: done } = await enrolTotp(gw, cookie, 'hank-pw');
    expect(done).toMatchObject({ code: 'totp_enrolled' });
    expect(await state(next)).toBe('enrolled');
  });

  it('answers a wrong method on its paths with 405 and Allow', async () => {
    const res = await fetch(`${gw.url}/api/account/totp/confirm`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('self-enrolled TOTP on the embedded store', () => {
  it('survives a restart: the next login still asks for the code, and the secret is not stored in the clear', async () => {
    const dir = tempDataDir();
    const env = { USERS: `alice:${hashOf('alice-pw')}`, DATA_DIR: dir.dir };
    let gw = await startGateway(env);
    let secret: string;
    try {
      ({ secret } = await enrolTotp(gw, await loginCookie(gw, 'alice', 'alice-pw'), 'alice-pw'));
    } finally {
      await gw.close();
    }
    for (const f of readdirSync(dir.dir)) expect(readFileSync(`${dir.dir}/${f}`).includes(Buffer.from(secret))).toBe(false);
    gw = await startGateway(env);
    try {
      const res = await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw' });
      expect(await expectEnvelope(res, 200)).toMatchObject({ totpPending: 'true' });
      expect((await askForwardAuth(gw, 'traefik', { authorization: basic('alice', 'alice-pw'), ...forwardedFor(APP) })).status).toBe(401);
    } finally {
      await gw.close();
      dir.remove();
    }
  });
});
