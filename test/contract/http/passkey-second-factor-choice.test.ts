import { basic, hashOf, TOTP_SECRET } from '../../support/credentials';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, postJson, SESSION_COOKIE } from '../../support/http';
import { cookieFrom, startGatewayWithUsersFile, type RunningGateway } from '../../support/server';
import { PASSKEY_ORIGIN, registerPasskey, SAME_SITE, SECOND_FACTOR_COOKIE } from '../../support/passkeys';
import { SoftAuthenticator } from '../../support/soft-authenticator';

const APP = 'https://app.example.test/';

/** Issue 16: an account with a password and a passkey chooses whether the passkey is asked after the password. */
describe('the per-account choice of a passkey as second factor (/api/passkeys/second-factor)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGatewayWithUsersFile(
      `users:\n  - username: alice\n    password: "${hashOf('alice-pw')}"\n  - username: bob\n    password: "${hashOf('bob-pw')}"\n` +
        `  - username: erin\n    password: "${hashOf('erin-pw')}"\n` +
        `  - username: carol\n    password: "${hashOf('carol-pw')}"\n    totp_secret: ${TOTP_SECRET}\n  - username: dora\n    passkey_only: true\n`,
    );
  });
  afterAll(() => gw.close());

  async function addPasskey(session: string, authenticator: SoftAuthenticator, password: string): Promise<void> {
    expect((await registerPasskey(gw, session, authenticator, 'Key', password)).status).toBe(200);
  }
  /** The account page's switch, with the password asked again (issue 29) when one is given. */
  const choose = (session: string, passkey: unknown, headers: Record<string, string> = SAME_SITE, password?: string): Promise<Response> =>
    postJson(gw, '/api/passkeys/second-factor', password === undefined ? { passkey } : { passkey, password }, { cookie: session, ...headers });
  const state = async (session: string): Promise<unknown> =>
    (await expectEnvelope(await fetch(`${gw.url}/api/passkeys`, { headers: { cookie: session } }), 200)).secondFactor;
  async function passwordLogin(user: string): Promise<{ cookie: string; pending: string }> {
    const res = await postJson(gw, '/api/login', { username: user, password: `${user}-pw` });
    const body = (await expectEnvelope(res, 200)) as { totpPending: string };
    return { cookie: `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`, pending: body.totpPending };
  }

  it('asks for the passkey after the password once chosen, and the pending step offers only the passkey', async () => {
    const session = await loginCookie(gw, 'alice', 'alice-pw');
    const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
    await addPasskey(session, authenticator, 'alice-pw');
    expect(await state(session)).toBe('off');
    expect((await passwordLogin('alice')).pending).toBe('false');

    expect(await expectEnvelope(await choose(session, true, SAME_SITE, 'alice-pw'), 200)).toMatchObject({
      code: 'second_factor_chosen',
      secondFactor: 'chosen',
    });
    expect(await state(session)).toBe('chosen');

    const { cookie, pending } = await passwordLogin('alice');
    expect(pending).toBe('true');
    // The password alone passes nothing.
    expect((await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status).toBe(401);
    const user = await expectEnvelope(await fetch(`${gw.url}/api/user`, { headers: { cookie } }), 200);
    expect(user).toMatchObject({ code: 'totp_pending', secondFactors: ['passkey'] });

    const opts = await postJson(gw, '/api/passkeys/login/options', { purpose: 'second_factor' }, { cookie });
    const { options } = (await opts.json()) as { options: Record<string, unknown> };
    const done = await postJson(
      gw,
      '/api/passkeys/login',
      { purpose: 'second_factor', response: authenticator.assert(options) },
      { cookie: `${cookie}; ${SECOND_FACTOR_COOKIE}=${cookieFrom(opts, SECOND_FACTOR_COOKIE)?.value}` },
    );
    expect(await expectEnvelope(done, 200)).toMatchObject({ code: 'logged_in' });
    const full = `${SESSION_COOKIE}=${cookieFrom(done, SESSION_COOKIE)?.value}`;
    expect((await askForwardAuth(gw, 'traefik', { cookie: full, ...forwardedFor(APP) })).status).toBe(200);

    expect(await expectEnvelope(await choose(session, false, SAME_SITE, 'alice-pw'), 200)).toMatchObject({ secondFactor: 'off' });
    expect((await passwordLogin('alice')).pending).toBe('false');
  });

  it('refuses HTTP Basic for an account that chose a passkey after its password, exactly as for a TOTP account', async () => {
    const session = await loginCookie(gw, 'erin', 'erin-pw');
    await addPasskey(session, new SoftAuthenticator(PASSKEY_ORIGIN), 'erin-pw');
    expect((await choose(session, true, SAME_SITE, 'erin-pw')).status).toBe(200);
    const totpAccount = await askForwardAuth(gw, 'traefik', { authorization: basic('carol', 'carol-pw'), ...forwardedFor(APP) });
    const res = await askForwardAuth(gw, 'traefik', { authorization: basic('erin', 'erin-pw'), ...forwardedFor(APP) });
    expect(res.status).toBe(totpAccount.status);
    expect(await res.json()).toEqual(await totpAccount.json());
    expect(res.headers.get('remote-user')).toBeNull();
  });

  it('tells the pending step of a TOTP account that the code is accepted', async () => {
    const res = await postJson(gw, '/api/login', { username: 'carol', password: 'carol-pw' });
    const cookie = `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`;
    expect(await expectEnvelope(await fetch(`${gw.url}/api/user`, { headers: { cookie } }), 200)).toMatchObject({ secondFactors: ['totp'] });
  });

  it('refuses the choice without a passkey, from another site, with no session, and a non-boolean', async () => {
    const bob = await loginCookie(gw, 'bob', 'bob-pw');
    expect((await expectEnvelope(await choose(bob, true), 409)).code).toBe('no_passkey');
    expect((await expectEnvelope(await choose(bob, 'yes'), 400)).code).toBe('invalid_fields');
    expect((await expectEnvelope(await choose(bob, true, { 'sec-fetch-site': 'cross-site' }), 403)).code).toBe('passkey_cross_site');
    expect((await expectEnvelope(await choose('', true), 401)).code).toBe('not_logged_in');
    expect(await state(bob)).toBe('off');
  });
});
