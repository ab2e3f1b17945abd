import { HmacPasskeyEnrolmentLinks } from '../../../src/adapters/crypto/hmac-one-time-links';
import { InMemoryPasskeyEnrolmentLinks } from '../../../src/adapters/state/memory/in-memory-passkey-enrolment-links';
import { SystemClock } from '../../../src/adapters/system/system-clock';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf, TEST_SECRET } from '../../support/credentials';
import { expectEnvelope, loginCookie, postJson, SESSION_COOKIE } from '../../support/http';
import { capturedLogger } from '../../support/loggers';
import { ENROL_COOKIE, PASSKEY_ORIGIN, REAUTHENTICATE_COOKIE, registerPasskey, SAME_SITE } from '../../support/passkeys';
import { cookieFrom, startGatewayWithUsersFile, type RunningGateway } from '../../support/server';
import { SoftAuthenticator } from '../../support/soft-authenticator';

/**
 * Issue 29, items 2 and 10: a copy of a session cookie must not be enough to add a passkey (a
 * permanent two-factor login that outlives "sign out everywhere" and a password change), nor to
 * remove one or turn the passkey second step off. Each asks the password again (a passkey-only
 * account: one of its passkeys), counted like a login.
 */
describe('re-authentication before a passkey change', () => {
  let gw: RunningGateway;
  const log = capturedLogger('info');
  const links = new HmacPasskeyEnrolmentLinks(new InMemoryPasskeyEnrolmentLinks(new SystemClock()), TEST_SECRET);
  const people = ['alice', 'bob', 'carol', 'dave', 'erin'];

  beforeAll(async () => {
    gw = await startGatewayWithUsersFile(
      `users:\n` +
        people.map((u) => `  - username: ${u}\n    password: "${hashOf(`${u}-pw`)}"\n`).join('') +
        ['dora', 'fay'].map((u) => `  - username: ${u}\n    passkey_only: true\n`).join(''),
      { LOGIN_MAX_RETRIES: '3' },
      { [TOKENS.PasskeyEnrolmentLinks]: links, [TOKENS.Logger]: log.logger },
    );
  });
  afterAll(() => gw.close());

  const passkeysOf = async (session: string): Promise<unknown[]> =>
    (await expectEnvelope(await fetch(`${gw.url}/api/passkeys`, { headers: { cookie: session } }), 200)).passkeys as unknown[];

  /** A passkey-only account's session and authenticator, from an enrolment link. */
  let linksMade = 0;
  async function enrolled(username: string): Promise<{ session: string; authenticator: SoftAuthenticator }> {
    linksMade += 1;
    const code = `test-enrolment-${username}-${linksMade}-${'x'.repeat(32)}`;
    await links.put(code, username, Date.now() + 60_000);
    const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
    const started = await postJson(gw, '/api/passkeys/enrolment/options', { code }, SAME_SITE);
    const { options } = (await started.json()) as { options: Record<string, unknown> };
    const res = await postJson(
      gw,
      '/api/passkeys/enrolment',
      { name: 'Phone', response: authenticator.register(options) },
      { cookie: `${ENROL_COOKIE}=${cookieFrom(started, ENROL_COOKIE)?.value}`, ...SAME_SITE },
    );
    expect(res.status).toBe(200);
    return { session: `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`, authenticator };
  }

  /** A passkey-only account's proof: a re-authentication ceremony answered by `authenticator`, as body field and cookie. */
  async function passkeyProof(session: string, authenticator: SoftAuthenticator): Promise<{ body: Record<string, unknown>; cookie: string }> {
    const opts = await postJson(gw, '/api/passkeys/login/options', { purpose: 'reauthenticate' }, { cookie: session, ...SAME_SITE });
    expect(opts.status).toBe(200);
    const { options } = (await opts.json()) as { options: Record<string, unknown> };
    return {
      body: { reauthentication: authenticator.assert(options) },
      cookie: `${session}; ${REAUTHENTICATE_COOKIE}=${cookieFrom(opts, REAUTHENTICATE_COOKIE)?.value}`,
    };
  }

  describe('attacks', () => {
    it('a session cookie alone cannot start adding a passkey: the password is asked again', async () => {
      const stolen = await loginCookie(gw, 'alice', 'alice-pw');
      const res = await postJson(gw, '/api/passkeys/registration/options', {}, { cookie: stolen, ...SAME_SITE });
      expect(await expectEnvelope(res, 403)).toMatchObject({ code: 'reauthentication_required', method: 'password' });
      expect(cookieFrom(res, 'portcullis-passkey-register')).toBeNull();
      expect(await passkeysOf(stolen)).toEqual([]);
    });

    it('counts a wrong password like a failed login: the account locks for the login form too', async () => {
      const stolen = await loginCookie(gw, 'bob', 'bob-pw');
      for (let i = 0; i < 3; i += 1) {
        const res = await postJson(gw, '/api/passkeys/registration/options', { password: 'guess' }, { cookie: stolen, ...SAME_SITE });
        expect(await expectEnvelope(res, 401)).toMatchObject({ code: 'invalid_credentials' });
      }
      const locked = await postJson(gw, '/api/passkeys/registration/options', { password: 'bob-pw' }, { cookie: stolen, ...SAME_SITE });
      expect(await expectEnvelope(locked, 429)).toMatchObject({ code: 'account_locked' });
      expect((await postJson(gw, '/api/login', { email: 'bob', password: 'bob-pw' })).status).toBe(429);
      expect(log.lines().some((l) => l.event === 'login_failed' && l.login === 'bob')).toBe(true);
    });

    it('a session cookie alone cannot remove a passkey or turn the passkey second step off', async () => {
      const session = await loginCookie(gw, 'carol', 'carol-pw');
      const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
      expect((await registerPasskey(gw, session, authenticator, 'Key', 'carol-pw')).status).toBe(200);
      const chosen = await postJson(gw, '/api/passkeys/second-factor', { passkey: true, password: 'carol-pw' }, { cookie: session, ...SAME_SITE });
      expect(await expectEnvelope(chosen, 200)).toMatchObject({ code: 'second_factor_chosen' });

      const off = await postJson(gw, '/api/passkeys/second-factor', { passkey: false }, { cookie: session, ...SAME_SITE });
      expect(await expectEnvelope(off, 403)).toMatchObject({ code: 'reauthentication_required', method: 'password' });
      const wrong = await postJson(gw, '/api/passkeys/second-factor', { passkey: false, password: 'nope' }, { cookie: session, ...SAME_SITE });
      expect(await expectEnvelope(wrong, 401)).toMatchObject({ code: 'invalid_credentials' });
      expect((await expectEnvelope(await fetch(`${gw.url}/api/passkeys`, { headers: { cookie: session } }), 200)).secondFactor).toBe('chosen');

      const removed = await postJson(gw, '/api/passkeys/remove', { id: authenticator.credentialId }, { cookie: session, ...SAME_SITE });
      expect(await expectEnvelope(removed, 403)).toMatchObject({ code: 'reauthentication_required' });
      expect(await passkeysOf(session)).toHaveLength(1);
      const proven = await postJson(gw, '/api/passkeys/remove', { id: authenticator.credentialId, password: 'carol-pw' }, { cookie: session, ...SAME_SITE });
      expect(await expectEnvelope(proven, 200)).toMatchObject({ code: 'passkey_removed' });
    });

    it('renaming stays a plain session change (it grants nothing)', async () => {
      const session = await loginCookie(gw, 'dave', 'dave-pw');
      const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
      expect((await registerPasskey(gw, session, authenticator, 'Key', 'dave-pw')).status).toBe(200);
      const res = await postJson(gw, '/api/passkeys/rename', { id: authenticator.credentialId, name: 'Desk' }, { cookie: session, ...SAME_SITE });
      expect(res.status).toBe(200);
    });

    it("a passkey-only account proves itself with one of its passkeys, never with another account's", async () => {
      const { session, authenticator } = await enrolled('dora');
      const bare = await postJson(gw, '/api/passkeys/registration/options', {}, { cookie: session, ...SAME_SITE });
      expect(await expectEnvelope(bare, 403)).toMatchObject({ code: 'reauthentication_required', method: 'passkey' });

      const fays = await enrolled('fay');
      const foreign = await passkeyProof(session, fays.authenticator);
      const refused = await postJson(gw, '/api/passkeys/registration/options', foreign.body, { cookie: foreign.cookie, ...SAME_SITE });
      expect(refused.status).toBe(401);

      const proof = await passkeyProof(session, authenticator);
      const res = await postJson(gw, '/api/passkeys/registration/options', proof.body, { cookie: proof.cookie, ...SAME_SITE });
      expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'passkey_options' });
      // The same proof again: its ceremony was spent.
      const replay = await postJson(gw, '/api/passkeys/registration/options', proof.body, { cookie: proof.cookie, ...SAME_SITE });
      expect(replay.status).toBe(400);
    });

    it('refuses a re-authentication ceremony started by another session of the account', async () => {
      const { session, authenticator } = await enrolled('dora');
      const other = await passkeyProof((await enrolled('dora')).session, authenticator);
      const res = await postJson(gw, '/api/passkeys/registration/options', other.body, {
        cookie: `${session}; ${other.cookie.split('; ').find((c) => c.startsWith(REAUTHENTICATE_COOKIE))}`,
        ...SAME_SITE,
      });
      expect(await expectEnvelope(res, 400)).toMatchObject({ code: 'challenge_invalid' });
    });
  });

  it('adds a passkey with the password asked again, and audits it', async () => {
    const session = await loginCookie(gw, 'erin', 'erin-pw');
    const res = await registerPasskey(gw, session, new SoftAuthenticator(PASSKEY_ORIGIN), 'Laptop', 'erin-pw');
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'passkey_added' });
    expect(log.lines().some((l) => l.event === 'passkey_registered' && l.username === 'erin')).toBe(true);
    expect(log.lines().some((l) => l.event === 'reauthenticated' && l.username === 'erin' && l.method === 'password')).toBe(true);
  });
});
