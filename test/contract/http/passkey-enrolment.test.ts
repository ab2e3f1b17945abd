import { HmacPasskeyEnrolmentLinks } from '../../../src/adapters/crypto/hmac-one-time-links';
import { InMemoryPasskeyEnrolmentLinks } from '../../../src/adapters/state/memory/in-memory-passkey-enrolment-links';
import { SystemClock } from '../../../src/adapters/system/system-clock';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf, TEST_SECRET } from '../../support/credentials';
import { askForwardAuth, expectEnvelope, forwardedFor, postJson, SESSION_COOKIE } from '../../support/http';
import { cookieFrom, startGatewayWithUsersFile, type RunningGateway } from '../../support/server';
import { ENROL_COOKIE, LOGIN_COOKIE, PASSKEY_ORIGIN, SAME_SITE } from '../../support/passkeys';
import { SoftAuthenticator } from '../../support/soft-authenticator';

const APP = 'https://app.example.test/';

/** Issue 16: a passkey-only account's first passkey, from a single-use link. */
describe('passkey enrolment links over HTTP (/api/passkeys/enrolment)', () => {
  let gw: RunningGateway;
  // The gateway's own link store, so the test can make links as `portcullis passkeys enrol` does.
  const links = new HmacPasskeyEnrolmentLinks(new InMemoryPasskeyEnrolmentLinks(new SystemClock()), TEST_SECRET);
  let next = 0;
  async function link(username: string, lifetimeMs = 60_000): Promise<string> {
    next += 1;
    const code = `test-enrolment-code-${next}-${'x'.repeat(32)}`;
    await links.put(code, username, Date.now() + lifetimeMs);
    return code;
  }

  beforeAll(async () => {
    gw = await startGatewayWithUsersFile(
      `users:\n  - username: alice\n    password: "${hashOf('alice-pw')}"\n` +
        ['dora', 'erin', 'frank', 'gina', 'hank', 'ivy'].map((u) => `  - username: ${u}\n    passkey_only: true\n    name: ${u.toUpperCase()}\n`).join(''),
      {},
      { [TOKENS.PasskeyEnrolmentLinks]: links },
    );
  });
  afterAll(() => gw.close());

  const start = (code: unknown, headers: Record<string, string> = SAME_SITE): Promise<Response> =>
    postJson(gw, '/api/passkeys/enrolment/options', { code }, headers);

  async function enrol(code: string, authenticator: SoftAuthenticator, name = 'Phone'): Promise<Response> {
    const started = await start(code);
    expect(started.status).toBe(200);
    const { options } = (await started.json()) as { options: Record<string, unknown> };
    return postJson(
      gw,
      '/api/passkeys/enrolment',
      { name, response: authenticator.register(options) },
      { cookie: `${ENROL_COOKIE}=${cookieFrom(started, ENROL_COOKIE)?.value}`, ...SAME_SITE },
    );
  }

  it('registers the first passkey from a link and logs the person in (a full, two-factor session)', async () => {
    const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
    const code = await link('dora');
    const started = await start(code);
    expect(await expectEnvelope(started.clone(), 200)).toMatchObject({ code: 'passkey_options', username: 'dora' });
    const ceremony = cookieFrom(started, ENROL_COOKIE);
    expect(ceremony?.attributes.join(';')).toMatch(/HttpOnly/i);
    const { options } = (await started.json()) as { options: { user: { name: string } } };
    expect(options.user.name).toBe('dora');
    const res = await postJson(
      gw,
      '/api/passkeys/enrolment',
      { name: 'Phone', response: authenticator.register(options as unknown as Record<string, unknown>) },
      { cookie: `${ENROL_COOKIE}=${ceremony?.value}`, ...SAME_SITE },
    );
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'passkey_enrolled', passkey: { id: authenticator.credentialId, name: 'Phone' } });
    const session = `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`;
    const auth = await askForwardAuth(gw, 'traefik', { cookie: session, ...forwardedFor(APP) });
    expect(auth.status).toBe(200);
    expect(auth.headers.get('remote-user')).toBe('dora');
    expect((await expectEnvelope(await fetch(`${gw.url}/api/passkeys`, { headers: { cookie: session } }), 200)).passkeys).toEqual([
      expect.objectContaining({ id: authenticator.credentialId, name: 'Phone' }),
    ]);
  });

  it('keeps the last passkey of a passkey-only account: removing it would lock the person out', async () => {
    const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
    const res = await enrol(await link('gina'), authenticator);
    const session = `${SESSION_COOKIE}=${cookieFrom(res, SESSION_COOKIE)?.value}`;
    const removed = await postJson(gw, '/api/passkeys/remove', { id: authenticator.credentialId }, { cookie: session, ...SAME_SITE });
    expect((await expectEnvelope(removed, 409)).code).toBe('last_passkey');
    expect((await expectEnvelope(await fetch(`${gw.url}/api/passkeys`, { headers: { cookie: session } }), 200)).passkeys).toHaveLength(1);
  });

  it('then signs the person in with that passkey', async () => {
    const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
    expect((await enrol(await link('erin'), authenticator)).status).toBe(200);
    const opts = await postJson(gw, '/api/passkeys/login/options', { purpose: 'login' });
    const { options } = (await opts.json()) as { options: Record<string, unknown> };
    const res = await postJson(
      gw,
      '/api/passkeys/login',
      { purpose: 'login', response: authenticator.assert(options) },
      { cookie: `${LOGIN_COOKIE}=${cookieFrom(opts, LOGIN_COOKIE)?.value}` },
    );
    expect(await expectEnvelope(res, 200)).toMatchObject({ code: 'logged_in' });
  });

  it('refuses a replayed link, even before the first use finished, with one answer for every bad link', async () => {
    const code = await link('frank');
    expect((await start(code)).status).toBe(200);
    const replay = await expectEnvelope(await start(code), 400);
    expect(replay.code).toBe('enrolment_link_invalid');
    for (const bad of ['unknown-code-' + 'y'.repeat(40), 'short', 42, null]) {
      expect(await expectEnvelope(await start(bad), 400)).toEqual(replay);
    }
  });

  it('refuses an expired link', async () => {
    const code = await link('ivy', 1);
    await new Promise((r) => setTimeout(r, 10));
    expect((await expectEnvelope(await start(code), 400)).code).toBe('enrolment_link_invalid');
  });

  it('refuses a link for an account that has a password (it adds passkeys from its account page)', async () => {
    expect((await expectEnvelope(await start(await link('alice')), 400)).code).toBe('enrolment_link_invalid');
  });

  it('refuses a cross-site start without spending the link, and a cross-site finish', async () => {
    const code = await link('hank');
    expect(await expectEnvelope(await start(code, { 'sec-fetch-site': 'cross-site' }), 403)).toMatchObject({ code: 'passkey_cross_site' });
    const started = await start(code);
    expect(started.status).toBe(200);
    const { options } = (await started.json()) as { options: Record<string, unknown> };
    const res = await postJson(
      gw,
      '/api/passkeys/enrolment',
      { name: 'Phone', response: new SoftAuthenticator(PASSKEY_ORIGIN).register(options) },
      { cookie: `${ENROL_COOKIE}=${cookieFrom(started, ENROL_COOKIE)?.value}`, 'sec-fetch-site': 'cross-site' },
    );
    expect((await expectEnvelope(res, 403)).code).toBe('passkey_cross_site');
  });

  it('uses an enrolment ceremony once, and never as a login ceremony', async () => {
    const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
    const started = await start(await link('dora'));
    const { options } = (await started.json()) as { options: Record<string, unknown> };
    const ceremony = `${ENROL_COOKIE}=${cookieFrom(started, ENROL_COOKIE)?.value}`;
    const response = authenticator.register(options);
    expect((await postJson(gw, '/api/passkeys/enrolment', { name: 'Key', response }, { cookie: ceremony, ...SAME_SITE })).status).toBe(200);
    const again = await postJson(gw, '/api/passkeys/enrolment', { name: 'Key', response }, { cookie: ceremony, ...SAME_SITE });
    expect((await expectEnvelope(again, 400)).code).toBe('challenge_invalid');
    const asLogin = await postJson(
      gw,
      '/api/passkeys/login',
      { purpose: 'login', response: authenticator.assert({ challenge: options.challenge, rpId: 'example.test' }) },
      { cookie: `${LOGIN_COOKIE}=${cookieFrom(started, ENROL_COOKIE)?.value}` },
    );
    expect((await expectEnvelope(asLogin, 400)).code).toBe('challenge_invalid');
  });

  it('answers a wrong method on the passkey paths with 405 and Allow', async () => {
    for (const path of ['/api/passkeys/enrolment/options', '/api/passkeys/enrolment', '/api/passkeys/login', '/api/passkeys/registration']) {
      const res = await fetch(`${gw.url}${path}`);
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
    const list = await fetch(`${gw.url}/api/passkeys`, { method: 'DELETE' });
    expect(list.status).toBe(405);
    expect(list.headers.get('allow')).toMatch(/GET/);
  });
});
