import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, postJson, SESSION_COOKIE, totpCode } from '../../support/http';
import { capturedLogger } from '../../support/loggers';
import { cookieFrom, startGateway, type RunningGateway } from '../../support/server';
import { LOGIN_COOKIE, PASSKEY_ORIGIN, REGISTER_COOKIE, registerPasskey, SAME_SITE, SECOND_FACTOR_COOKIE } from '../../support/passkeys';
import { SoftAuthenticator } from '../../support/soft-authenticator';

/** A Cookie header from name=value pairs (absent values left out). */
function cookies(...pairs: [string, string | undefined][]): string {
  return pairs
    .filter(([, v]) => v !== undefined)
    .map(([n, v]) => `${n}=${v}`)
    .join('; ');
}

function sessionOf(cookie: string): string {
  return cookie.slice(`${SESSION_COOKIE}=`.length);
}

describe('passkeys over HTTP (/api/passkeys)', () => {
  let gw: RunningGateway;
  const log = capturedLogger('info');
  let rulesDir: string;

  beforeAll(async () => {
    rulesDir = mkdtempSync(join(tmpdir(), 'portcullis-pk-'));
    writeFileSync(join(rulesDir, 'access.yaml'), 'apps:\n  vault:\n    require_second_factor: true\n  wiki:\n    require_totp: true\n');
    gw = await startGateway(
      {
        USERS: [
          `alice:${hashOf('alice-pw')}`,
          `bob:${hashOf('bob-pw')}:${TOTP_SECRET}`,
          `carol:${hashOf('carol-pw')}`,
          `dave:${hashOf('dave-pw')}`,
          `erin:${hashOf('erin-pw')}`,
          `frank:${hashOf('frank-pw')}`,
          `grace:${hashOf('grace-pw')}:${TOTP_SECRET}`,
          `heidi:${hashOf('heidi-pw')}`,
        ].join(','),
        LOGIN_MAX_RETRIES: '3',
        ACCESS_CONFIG: join(rulesDir, 'access.yaml'),
      },
      { [TOKENS.Logger]: log.logger },
    );
  });
  afterAll(async () => {
    await gw.close();
    rmSync(rulesDir, { recursive: true, force: true });
  });

  /** Registers a passkey for the session `session` (a Cookie header); the authenticator answers. */
  /** Every account here has the password `<name>-pw`, asked again before a passkey is added (issue 29). */
  const register = (user: string, session: string, authenticator: SoftAuthenticator, name = 'Laptop'): Promise<Response> =>
    registerPasskey(gw, session, authenticator, name, `${user}-pw`);
  const removePasskey = (user: string, session: string, id: string): Promise<Response> =>
    postJson(gw, '/api/passkeys/remove', { id, password: `${user}-pw` }, { cookie: session, ...SAME_SITE });

  /** Starts a passkey login (or second factor): its options and its ceremony cookie. */
  async function loginOptions(purpose: 'login' | 'second_factor' = 'login', session?: string): Promise<{ options: Record<string, unknown>; ceremony: string }> {
    const res = await postJson(gw, '/api/passkeys/login/options', { purpose }, session === undefined ? {} : { cookie: session });
    expect(res.status).toBe(200);
    const { options } = (await res.json()) as { options: Record<string, unknown> };
    return { options, ceremony: cookieFrom(res, purpose === 'login' ? LOGIN_COOKIE : SECOND_FACTOR_COOKIE)?.value ?? '' };
  }

  function finishLogin(response: unknown, ceremony: string, purpose: 'login' | 'second_factor' = 'login', session?: string): Promise<Response> {
    const name = purpose === 'login' ? LOGIN_COOKIE : SECOND_FACTOR_COOKIE;
    return postJson(gw, '/api/passkeys/login', { purpose, response }, { cookie: [cookies([name, ceremony]), session].filter(Boolean).join('; ') });
  }

  async function registered(user: string): Promise<{ authenticator: SoftAuthenticator; session: string }> {
    const session = await loginCookie(gw, user, `${user}-pw`);
    const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
    expect((await register(user, session, authenticator)).status).toBe(200);
    return { authenticator, session };
  }

  it('registers, lists, renames and removes a passkey for a logged-in person', async () => {
    const session = await loginCookie(gw, 'alice', 'alice-pw');
    const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
    const added = await register('alice', session, authenticator, 'Work laptop');
    expect(await expectEnvelope(added, 200)).toMatchObject({
      code: 'passkey_added',
      passkey: { id: authenticator.credentialId, name: 'Work laptop', lastUsedAt: null },
    });
    const list = await expectEnvelope(await fetch(`${gw.url}/api/passkeys`, { headers: { cookie: session } }), 200);
    expect(list.passkeys).toEqual([expect.objectContaining({ id: authenticator.credentialId, name: 'Work laptop' })]);
    expect(JSON.stringify(list)).not.toContain('publicKey');
    const renamed = await postJson(gw, '/api/passkeys/rename', { id: authenticator.credentialId, name: 'Laptop' }, { cookie: session, ...SAME_SITE });
    expect(await expectEnvelope(renamed, 200)).toMatchObject({ code: 'passkey_renamed' });
    const removed = await removePasskey('alice', session, authenticator.credentialId);
    expect(await expectEnvelope(removed, 200)).toMatchObject({ code: 'passkey_removed' });
    expect((await expectEnvelope(await fetch(`${gw.url}/api/passkeys`, { headers: { cookie: session } }), 200)).passkeys).toEqual([]);
    expect(log.lines().some((l) => l.event === 'passkey_registered' && l.username === 'alice')).toBe(true);
  });

  it('signs in with a passkey alone: a full session that passes require_second_factor and the old require_totp', async () => {
    const { authenticator } = await registered('carol');
    const { options, ceremony } = await loginOptions();
    expect(options.allowCredentials).toEqual([]);
    expect(options.rpId).toBe('example.test');
    const res = await finishLogin(authenticator.assert(options), ceremony);
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'logged_in', totpPending: 'false' });
    const session = `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`;
    for (const app of ['https://vault.example.test/', 'https://wiki.example.test/']) {
      const auth = await askForwardAuth(gw, 'traefik', { cookie: session, ...forwardedFor(app) });
      expect(auth.status).toBe(200);
      expect(auth.headers.get('remote-user')).toBe('carol');
    }
    expect(log.lines().some((l) => l.event === 'login_succeeded' && l.method === 'passkey' && l.username === 'carol')).toBe(true);
  });

  it('a password session does not pass require_second_factor', async () => {
    const session = await loginCookie(gw, 'alice', 'alice-pw');
    const auth = await askForwardAuth(gw, 'traefik', { cookie: session, ...forwardedFor('https://vault.example.test/') });
    expect(auth.status).toBe(403);
  });

  describe('attacks', () => {
    it('refuses a replayed assertion: the same answer to the same ceremony works once', async () => {
      const { authenticator } = await registered('dave');
      const { options, ceremony } = await loginOptions();
      const response = authenticator.assert(options);
      expect((await finishLogin(response, ceremony)).status).toBe(200);
      const replay = await finishLogin(response, ceremony);
      expect(await expectEnvelope(replay, 400)).toMatchObject({ code: 'challenge_invalid' });
      expect(cookieFrom(replay, SESSION_COOKIE)).toBeNull();
    });

    it('refuses an assertion that answers another ceremony than the one its cookie holds', async () => {
      const { authenticator } = await registered('erin');
      const first = await loginOptions();
      const second = await loginOptions();
      const res = await finishLogin(authenticator.assert(first.options), second.ceremony);
      expect(await expectEnvelope(res, 401)).toMatchObject({ code: 'passkey_invalid' });
    });

    it("refuses another account's passkey as the second factor of a pending login", async () => {
      const { authenticator: franks } = await registered('frank');
      const pending = await loginCookie(gw, 'bob', 'bob-pw');
      // bob has no passkey: no second-factor ceremony at all.
      expect((await postJson(gw, '/api/passkeys/login/options', { purpose: 'second_factor' }, { cookie: pending })).status).toBe(401);
      // Give bob one, then try frank's against bob's ceremony.
      const full = await fetchFullTotpSession('bob');
      expect((await register('bob', full, new SoftAuthenticator(PASSKEY_ORIGIN))).status).toBe(200);
      const pending2 = await loginCookie(gw, 'bob', 'bob-pw');
      const { options, ceremony } = await loginOptions('second_factor', pending2);
      const res = await finishLogin(franks.assert({ ...options, rpId: 'example.test' }), ceremony, 'second_factor', pending2);
      expect(await expectEnvelope(res, 401)).toMatchObject({ code: 'passkey_invalid' });
      expect(cookieFrom(res, SESSION_COOKIE)).toBeNull();
    });

    it('refuses a passkey whose user handle names another account', async () => {
      const { authenticator } = await registered('heidi');
      const { options, ceremony } = await loginOptions();
      const res = await finishLogin(authenticator.assert(options, { userHandle: Buffer.from('someone-else').toString('base64url') }), ceremony);
      expect(await expectEnvelope(res, 401)).toMatchObject({ code: 'passkey_invalid' });
    });

    it('refuses to register a passkey with a pending (password-only) session of a TOTP account', async () => {
      const pending = await loginCookie(gw, 'grace', 'grace-pw');
      const res = await postJson(gw, '/api/passkeys/registration/options', {}, { cookie: pending, ...SAME_SITE });
      expect(await expectEnvelope(res, 401)).toMatchObject({ code: 'not_logged_in' });
    });

    it('refuses a registration ceremony started by another session', async () => {
      const a = await loginCookie(gw, 'alice', 'alice-pw');
      const b = await loginCookie(gw, 'alice', 'alice-pw');
      const start = await postJson(gw, '/api/passkeys/registration/options', { password: 'alice-pw' }, { cookie: a, ...SAME_SITE });
      const { options } = (await start.json()) as { options: Record<string, unknown> };
      const res = await postJson(
        gw,
        '/api/passkeys/registration',
        { name: 'x', response: new SoftAuthenticator(PASSKEY_ORIGIN).register(options) },
        { cookie: `${b}; ${cookies([REGISTER_COOKIE, cookieFrom(start, REGISTER_COOKIE)?.value])}`, ...SAME_SITE },
      );
      expect(await expectEnvelope(res, 400)).toMatchObject({ code: 'challenge_invalid' });
    });

    it('refuses a cross-site registration, rename or removal (Sec-Fetch-Site same-site, or a foreign Origin)', async () => {
      const session = await loginCookie(gw, 'alice', 'alice-pw');
      const crossSite = { cookie: session, 'sec-fetch-site': 'same-site' };
      expect(await expectEnvelope(await postJson(gw, '/api/passkeys/registration/options', {}, crossSite), 403)).toMatchObject({ code: 'passkey_cross_site' });
      expect((await postJson(gw, '/api/passkeys/remove', { id: 'abc' }, crossSite)).status).toBe(403);
      expect((await postJson(gw, '/api/passkeys/rename', { id: 'abc', name: 'x' }, crossSite)).status).toBe(403);
      const foreign = { cookie: session, origin: 'https://evil.example.net' };
      expect(await expectEnvelope(await postJson(gw, '/api/passkeys/registration/options', {}, foreign), 403)).toMatchObject({ code: 'passkey_cross_site' });
      expect((await postJson(gw, '/api/passkeys/remove', { id: 'abc' }, foreign)).status).toBe(403);
      const form = await fetch(`${gw.url}/api/passkeys/remove`, {
        method: 'POST',
        headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'id=abc',
      });
      expect(form.status).toBe(415);
    });

    it.each([
      ['another origin', { origin: 'https://evil.example.test' }],
      ['another relying party', { rpId: 'evil.test' }],
      ['another challenge', { challenge: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
      ['no user verification', { userVerified: false }],
    ])('refuses a registration made for %s', async (_what, forgery) => {
      const session = await loginCookie(gw, 'alice', 'alice-pw');
      const start = await postJson(gw, '/api/passkeys/registration/options', { password: 'alice-pw' }, { cookie: session, ...SAME_SITE });
      const { options } = (await start.json()) as { options: Record<string, unknown> };
      const res = await postJson(
        gw,
        '/api/passkeys/registration',
        { name: 'x', response: new SoftAuthenticator(PASSKEY_ORIGIN).register(options, forgery) },
        { cookie: `${session}; ${cookies([REGISTER_COOKIE, cookieFrom(start, REGISTER_COOKIE)?.value])}`, ...SAME_SITE },
      );
      expect(await expectEnvelope(res, 400)).toMatchObject({ code: 'passkey_invalid' });
    });

    it.each([
      ['another origin', { origin: 'https://evil.example.test' }],
      ['another relying party', { rpId: 'evil.test' }],
      ['no user verification', { userVerified: false }],
    ])('refuses a login assertion made for %s', async (_what, forgery) => {
      const { authenticator } = await registered('alice');
      const { options, ceremony } = await loginOptions();
      const res = await finishLogin(authenticator.assert(options, forgery), ceremony);
      expect(await expectEnvelope(res, 401)).toMatchObject({ code: 'passkey_invalid' });
      const session = await loginCookie(gw, 'alice', 'alice-pw');
      await removePasskey('alice', session, authenticator.credentialId);
    });

    it('refuses a cloned authenticator whose counter went back, and logs it', async () => {
      const { authenticator } = await registered('alice');
      const clone = authenticator.clone();
      for (let i = 0; i < 2; i += 1) {
        const { options, ceremony } = await loginOptions();
        expect((await finishLogin(authenticator.assert(options), ceremony)).status).toBe(200);
      }
      const { options, ceremony } = await loginOptions();
      const res = await finishLogin(clone.assert(options), ceremony);
      expect(await expectEnvelope(res, 401)).toMatchObject({ code: 'passkey_invalid' });
      expect(log.lines()).toContainEqual(expect.objectContaining({ event: 'passkey_counter_regressed', username: 'alice', stored: 2, presented: 1 }));
      const session = await loginCookie(gw, 'alice', 'alice-pw');
      await removePasskey('alice', session, authenticator.credentialId);
    });

    it('accepts an authenticator that always reports 0', async () => {
      const { authenticator } = await registered('dave');
      for (let i = 0; i < 2; i += 1) {
        const { options, ceremony } = await loginOptions();
        expect((await finishLogin(authenticator.assert(options, { counter: 0 }), ceremony)).status).toBe(200);
      }
    });

    it('counts failed assertions toward the lock like wrong passwords', async () => {
      const { authenticator } = await registered('erin');
      for (let i = 0; i < 3; i += 1) {
        const { options, ceremony } = await loginOptions();
        expect((await finishLogin(authenticator.assert(options, { origin: 'https://evil.example.test' }), ceremony)).status).toBe(401);
      }
      const { options, ceremony } = await loginOptions();
      const locked = await finishLogin(authenticator.assert(options), ceremony);
      expect(await expectEnvelope(locked, 429)).toMatchObject({ code: 'account_locked' });
      expect((await postJson(gw, '/api/login', { email: 'erin', password: 'erin-pw' })).status).toBe(429);
    });
  });

  it("completes a TOTP account's login with its passkey instead of the code", async () => {
    const full = await fetchFullTotpSession('grace');
    const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
    expect((await register('grace', full, authenticator)).status).toBe(200);
    const pending = await loginCookie(gw, 'grace', 'grace-pw');
    const { options, ceremony } = await loginOptions('second_factor', pending);
    expect(options.allowCredentials).toEqual([expect.objectContaining({ id: authenticator.credentialId })]);
    const res = await finishLogin(authenticator.assert(options), ceremony, 'second_factor', pending);
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'logged_in' });
    // The pending session is spent.
    const again = await loginOptions('second_factor', pending).catch(() => null);
    expect(again).toBeNull();
    expect(sessionOf(`${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`)).not.toBe(sessionOf(pending));
  });

  /** A full session of a TOTP account (password, then a fresh code). */
  async function fetchFullTotpSession(user: string): Promise<string> {
    const pending = await loginCookie(gw, user, `${user}-pw`);
    // One code per account per step: wait for a step no login of this account has used.
    const res = await postJson(gw, '/api/totp', { code: await totpCode(TOTP_SECRET, Math.floor(Date.now() / 1000)) }, { cookie: pending });
    if (res.status !== 200) throw new Error(`totp for ${user} answered ${res.status}`);
    return `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`;
  }
});

describe('PASSKEYS=off', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')}`, PASSKEYS: 'off' });
  });
  afterAll(() => gw.close());

  it('answers 404 on every passkey route and tells the UI', async () => {
    const session = await loginCookie(gw, 'alice', 'alice-pw');
    for (const path of ['/api/passkeys/login/options', '/api/passkeys/registration/options', '/api/passkeys/login']) {
      expect((await postJson(gw, path, {}, { cookie: session, ...SAME_SITE })).status).toBe(404);
    }
    expect((await fetch(`${gw.url}/api/passkeys`, { headers: { cookie: session } })).status).toBe(404);
    expect(await (await fetch(`${gw.url}/api/app`)).json()).toMatchObject({ passkeys: false });
  });
});

describe('PASSKEY_SECOND_FACTOR', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')},bob:${hashOf('bob-pw')}`, PASSKEY_SECOND_FACTOR: 'true' });
  });
  afterAll(() => gw.close());

  it('makes a password account that holds a passkey show it after the password; one without stays password-only', async () => {
    const session = await loginCookie(gw, 'alice', 'alice-pw');
    const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
    expect((await registerPasskey(gw, session, authenticator, 'Key', 'alice-pw')).status).toBe(200);

    const login = await postJson(gw, '/api/login', { email: 'alice', password: 'alice-pw' });
    expect(await expectEnvelope(login, 200)).toMatchObject({ totpPending: 'true' });
    const pending = `${SESSION_COOKIE}=${cookieFrom(login, SESSION_COOKIE)?.value}`;
    const optionsRes = await postJson(gw, '/api/passkeys/login/options', { purpose: 'second_factor' }, { cookie: pending });
    const second = (await optionsRes.json()) as { options: Record<string, unknown> };
    const res = await postJson(
      gw,
      '/api/passkeys/login',
      { purpose: 'second_factor', response: authenticator.assert(second.options) },
      { cookie: `${pending}; ${SECOND_FACTOR_COOKIE}=${cookieFrom(optionsRes, SECOND_FACTOR_COOKIE)?.value}` },
    );
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'logged_in' });

    expect(await expectEnvelope(await postJson(gw, '/api/login', { email: 'bob', password: 'bob-pw' }), 200)).toMatchObject({ totpPending: 'false' });
  });
});
