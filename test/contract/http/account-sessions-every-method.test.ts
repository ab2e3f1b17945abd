import { HmacPasskeyEnrolmentLinks } from '../../../src/adapters/crypto/hmac-one-time-links';
import { InMemoryPasskeyEnrolmentLinks } from '../../../src/adapters/state/memory/in-memory-passkey-enrolment-links';
import { SystemClock } from '../../../src/adapters/system/system-clock';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf, TEST_SECRET, TOTP_SECRET } from '../../support/credentials';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, postJson, SESSION_COOKIE, totpCode } from '../../support/http';
import { ENROL_COOKIE, LOGIN_COOKIE, PASSKEY_ORIGIN, registerPasskey, SAME_SITE, SECOND_FACTOR_COOKIE } from '../../support/passkeys';
import { cookieFrom, startGatewayWithUsersFile, type RunningGateway } from '../../support/server';
import { SoftAuthenticator } from '../../support/soft-authenticator';

const APP = 'https://app.example.test/';

/**
 * Issue 29, item 1: every full session, whatever login made it, is listed on the account page
 * and ended by "sign out everywhere". A session the index knows but the account page filters out
 * is a session its owner cannot end.
 */
describe('the account page sees and ends a session of every login method', () => {
  let gw: RunningGateway;
  const links = new HmacPasskeyEnrolmentLinks(new InMemoryPasskeyEnrolmentLinks(new SystemClock()), TEST_SECRET);

  beforeAll(async () => {
    gw = await startGatewayWithUsersFile(
      `users:\n` +
        `  - username: alice\n    password: "${hashOf('alice-pw')}"\n` +
        `  - username: tess\n    password: "${hashOf('tess-pw')}"\n    totp_secret: ${TOTP_SECRET}\n` +
        `  - username: dora\n    passkey_only: true\n`,
      {},
      { [TOKENS.PasskeyEnrolmentLinks]: links },
    );
  });
  afterAll(() => gw.close());

  const live = async (cookie: string): Promise<boolean> => (await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status === 200;
  const sessionCookie = (res: Response): string => `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`;
  const idOf = async (cookie: string): Promise<string> =>
    String((await expectEnvelope(await fetch(`${gw.url}/api/account`, { headers: { cookie } }), 200)).currentSession);
  const listedBy = async (cookie: string): Promise<Array<Record<string, unknown>>> =>
    (await expectEnvelope(await fetch(`${gw.url}/api/account`, { headers: { cookie } }), 200)).sessions as Array<Record<string, unknown>>;

  async function passkeyLogin(authenticator: SoftAuthenticator): Promise<string> {
    const opts = await postJson(gw, '/api/passkeys/login/options', { purpose: 'login' });
    const { options } = (await opts.json()) as { options: Record<string, unknown> };
    const res = await postJson(
      gw,
      '/api/passkeys/login',
      { purpose: 'login', response: authenticator.assert(options) },
      { cookie: `${LOGIN_COOKIE}=${cookieFrom(opts, LOGIN_COOKIE)?.value}` },
    );
    expect(res.status).toBe(200);
    return sessionCookie(res);
  }

  async function totpLogin(step: number): Promise<string> {
    const pending = await loginCookie(gw, 'tess', 'tess-pw');
    const res = await postJson(gw, '/api/totp', { code: await totpCode(TOTP_SECRET, Math.floor(Date.now() / 1000) + step * 30) }, { cookie: pending });
    expect(res.status).toBe(200);
    return sessionCookie(res);
  }

  /** Asserts that `victim` (made by `method`) is listed for `owner`, and that "sign out everywhere" from `owner` ends it. */
  async function listedAndEnded(owner: string, victim: string, method: string): Promise<void> {
    const id = await idOf(victim);
    expect((await listedBy(owner)).find((s) => s.id === id)).toMatchObject({ method });
    const res = await postJson(gw, '/api/account/sessions/revoke', { scope: 'all' }, { cookie: owner, ...SAME_SITE });
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'sessions_revoked', endedCurrent: true });
    expect(await live(victim)).toBe(false);
  }

  it('a passkey login of a password account', async () => {
    const setup = await loginCookie(gw, 'alice', 'alice-pw');
    const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
    expect((await registerPasskey(gw, setup, authenticator, 'Laptop', 'alice-pw')).status).toBe(200);
    const byPasskey = await passkeyLogin(authenticator);
    await listedAndEnded(await loginCookie(gw, 'alice', 'alice-pw'), byPasskey, 'passkey');
    // And the other way round: the passkey session lists and ends the password sessions.
    const byPassword = await loginCookie(gw, 'alice', 'alice-pw');
    await listedAndEnded(await passkeyLogin(authenticator), byPassword, 'password');
  });

  it('a passkey as the second step of a TOTP account, and a TOTP login', async () => {
    const full = await totpLogin(-1);
    const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
    expect((await registerPasskey(gw, full, authenticator, 'Key', 'tess-pw')).status).toBe(200);
    const pending = await loginCookie(gw, 'tess', 'tess-pw');
    const opts = await postJson(gw, '/api/passkeys/login/options', { purpose: 'second_factor' }, { cookie: pending });
    const { options } = (await opts.json()) as { options: Record<string, unknown> };
    const res = await postJson(
      gw,
      '/api/passkeys/login',
      { purpose: 'second_factor', response: authenticator.assert(options) },
      { cookie: `${pending}; ${SECOND_FACTOR_COOKIE}=${cookieFrom(opts, SECOND_FACTOR_COOKIE)?.value}` },
    );
    expect(res.status).toBe(200);
    const bySecondFactor = sessionCookie(res);
    await listedAndEnded(await totpLogin(0), bySecondFactor, 'passkey');
    const byTotp = await totpLogin(1);
    await listedAndEnded(await passkeyLogin(authenticator), byTotp, 'totp');
  });

  it('the first passkey of a passkey-only account, from an enrolment link, and its passkey logins', async () => {
    const code = `test-enrolment-code-every-method-${'x'.repeat(32)}`;
    await links.put(code, 'dora', Date.now() + 60_000);
    const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
    const started = await postJson(gw, '/api/passkeys/enrolment/options', { code }, SAME_SITE);
    const { options } = (await started.json()) as { options: Record<string, unknown> };
    const enrolled = await postJson(
      gw,
      '/api/passkeys/enrolment',
      { name: 'Phone', response: authenticator.register(options) },
      { cookie: `${ENROL_COOKIE}=${cookieFrom(started, ENROL_COOKIE)?.value}`, ...SAME_SITE },
    );
    expect(enrolled.status).toBe(200);
    const byEnrolment = sessionCookie(enrolled);
    await listedAndEnded(await passkeyLogin(authenticator), byEnrolment, 'passkey');
  });
});
