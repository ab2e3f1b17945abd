import { Attribute, Change } from 'ldapts';
import { TOKENS } from '../../src/composition/tokens';
import { RecordingAuditLog } from '../support/fakes';
import { LogoutRp } from '../support/logout-rp';
import { freePorts } from '../support/net';
import { APP_CLIENT_ENV, APP_SECRET, Browser, codeFlow, discoverClient, OIDC_PEOPLE, startOidcGateway } from '../support/oidc-gateway';
import { BASE_DN, personDn, SERVICE_DN, SERVICE_PASSWORD, Slapd } from '../support/slapd';

jest.setTimeout(60_000);

/**
 * Issue 35: an account deleted or disabled in the directory is out everywhere within about a
 * second (LDAP_ACCOUNT_CHECK_INTERVAL=1), well before the session re-check (LDAP_CACHE_TTL, an
 * hour here) would notice: its cookie, its access token and its app's refresh token stop working,
 * and the app it logged in to through the provider gets a back-channel logout token.
 */
describe('the LDAP account check (real OpenLDAP, real HTTP, a relying party listening for logouts)', () => {
  const audit = new RecordingAuditLog();
  let slapd: Slapd;
  let gw: Awaited<ReturnType<typeof startOidcGateway>>;
  let rp: LogoutRp;
  let url = '';

  beforeAll(async () => {
    slapd = await Slapd.start();
    const [port] = await freePorts(1);
    rp = new LogoutRp(port, { issuer: () => url, audience: 'app' });
    await rp.up();
    gw = await startOidcGateway(
      {
        ...APP_CLIENT_ENV,
        OIDC_CLIENTS_APP_BACKCHANNEL_LOGOUT_URI: rp.uri,
        LDAP_ADDRESS: slapd.url,
        LDAP_BIND_DN: SERVICE_DN,
        LDAP_BIND_PASSWORD: SERVICE_PASSWORD,
        LDAP_BASE_DN: BASE_DN,
        // "Disabled" is written into the filter, as a directory without a flag of its own needs.
        LDAP_SEARCH_FILTER: '(&(objectClass=inetOrgPerson)(uid=%s)(!(employeeType=disabled)))',
        LDAP_TIMEOUT: '2',
        LDAP_CACHE_TTL: '3600',
        LDAP_ACCOUNT_CHECK_INTERVAL: '1',
      },
      { [TOKENS.AuditLog]: audit },
    );
    url = gw.url;
  });
  afterAll(async () => {
    await gw?.close();
    await rp?.down();
    await slapd?.stop();
  });

  const forwardAuth = (headers: Record<string, string>): Promise<Response> =>
    fetch(`${url}/api/auth/caddy`, {
      headers: { accept: 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test', 'x-forwarded-uri': '/', ...headers },
    });
  const loggedIn = async (browser: Browser): Promise<boolean> =>
    ((await (await browser.fetch(`${url}/api/user`)).json()) as { isLoggedIn?: boolean }).isLoggedIn === true;
  /** Asks `probe` every 50 ms until it holds; the time it took, or null when it never did within `ms`. */
  async function within(ms: number, probe: () => Promise<boolean>): Promise<number | null> {
    const started = Date.now();
    while (Date.now() - started < ms) {
      if (await probe()) return Date.now() - started;
      await new Promise((r) => setTimeout(r, 50));
    }
    return null;
  }

  /** A person logged in with a session, an access token and the app's tokens (offline_access: a refresh token). */
  async function signedIn(uid: string) {
    await slapd.addPeople([{ uid, password: `${uid}-Pa55word`, cn: uid }]);
    const browser = new Browser(url);
    await browser.login(uid, `${uid}-Pa55word`);
    const made = await browser.fetch(`${url}/api/account/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ name: 'ci' }),
    });
    expect(made.status).toBe(201);
    const { token } = (await made.json()) as { token: string };
    const app = await discoverClient(url, 'app', APP_SECRET);
    const tokens = await codeFlow(browser, app, undefined, { scope: 'openid offline_access', prompt: 'consent' });
    expect(await loggedIn(browser)).toBe(true);
    expect((await forwardAuth({ authorization: `Bearer ${token}` })).status).toBe(200);
    return { browser, token, sid: tokens.claims()?.sid, refreshToken: tokens.refresh_token as string };
  }

  it('a person deleted from the directory: cookie and access token refused, and the app told, within two seconds', async () => {
    const lena = await signedIn('lena');
    const before = rp.received.length;
    await slapd.removePeople(['lena']);
    const took = await within(2_000, async () => !(await loggedIn(lena.browser)));
    expect(took).not.toBeNull();
    expect((await forwardAuth({ authorization: `Bearer ${lena.token}` })).status).toBe(401);
    const [logout] = (await rp.waitFor(before + 1, 2_000)).slice(before);
    expect(logout.claims.sid).toBe(lena.sid);
    expect(logout.claims.aud).toBe('app');
    const refreshed = await fetch(`${url}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`app:${APP_SECRET}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: lena.refreshToken }).toString(),
    });
    expect(refreshed.status).toBe(400);
    expect(audit.events).toContainEqual({ event: 'sessions_revoked', username: 'lena', scope: 'all', count: 1, by: 'ldap' });
    expect(audit.events).toContainEqual(expect.objectContaining({ event: 'token_revoked', username: 'lena', by: 'ldap' }));
  });

  it('a person disabled (no longer matched by LDAP_SEARCH_FILTER) is out as fast, and told once however many checks follow', async () => {
    const mona = await signedIn('mona');
    const before = rp.received.length;
    await slapd.admin((c) =>
      c.modify(personDn('mona'), new Change({ operation: 'add', modification: new Attribute({ type: 'employeeType', values: ['disabled'] }) })),
    );
    expect(await within(2_000, async () => !(await loggedIn(mona.browser)))).not.toBeNull();
    expect((await forwardAuth({ authorization: `Bearer ${mona.token}` })).status).toBe(401);
    expect((await rp.waitFor(before + 1, 2_000)).slice(before).map((r) => r.claims.sid)).toEqual([mona.sid]);
    // Several more checks run; the session was ended once.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(rp.received.length).toBe(before + 1);
    expect(audit.events.filter((e) => e.event === 'sessions_revoked' && e.username === 'mona')).toHaveLength(1);
  });

  it('leaves alone a person of the users file, whom the directory does not know', async () => {
    const alice = new Browser(url);
    await alice.login('alice', OIDC_PEOPLE.alice.password);
    // Several checks run, each with alice among the accounts holding sessions.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await loggedIn(alice)).toBe(true);
    expect(audit.events.filter((e) => e.event === 'sessions_revoked' && e.username === 'alice')).toEqual([]);
  });

  it('a directory outage ends nobody: sessions and tokens keep working through it and after', async () => {
    const nina = await signedIn('nina');
    const before = rp.received.length;
    await slapd.kill();
    try {
      // Several checks fail (each bounded by LDAP_TIMEOUT=2 s).
      await new Promise((r) => setTimeout(r, 5_000));
      expect(await loggedIn(nina.browser)).toBe(true);
      expect((await forwardAuth({ authorization: `Bearer ${nina.token}` })).status).toBe(200);
    } finally {
      await slapd.run();
    }
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await loggedIn(nina.browser)).toBe(true);
    expect((await forwardAuth({ authorization: `Bearer ${nina.token}` })).status).toBe(200);
    expect(rp.received.length).toBe(before);
    expect(audit.events.filter((e) => e.event === 'sessions_revoked' && e.username === 'nina')).toEqual([]);
  });
});
