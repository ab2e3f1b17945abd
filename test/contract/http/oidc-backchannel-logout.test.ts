import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as client from 'openid-client';
import { TOKENS } from '../../../src/composition/tokens';
import type { AuditEvent } from '../../../src/application/ports/audit-log';
import { RecordingAuditLog } from '../../support/fakes';
import { LogoutRp } from '../../support/logout-rp';
import { freePorts } from '../../support/net';
import { APP_CLIENT_ENV, APP_SECRET, Browser, codeFlow, discoverClient, loggedInBrowser, startOidcGateway, tokenRequest } from '../../support/oidc-gateway';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const SECRET = (id: string): string => `${APP_SECRET}-${id}`;
const CALLBACK = (id: string): string => `https://${id}.example.test/cb`;

jest.setTimeout(60_000);

/**
 * Issue 35, the provider side: every way a gateway session ends sends a signed logout token to each
 * app that logged in from it, through a durable queue (retried with backoff, given up after the
 * bound and audited), without delaying the answer that ended it; the app's refresh tokens end too.
 */
describe('OpenID Connect back-channel logout, as relying parties see it', () => {
  const audit = new RecordingAuditLog();
  let gw: Awaited<ReturnType<typeof startOidcGateway>>;
  let url = '';
  // `app` takes tokens; `late` is down at first and comes back; `gone` never listens.
  let app: LogoutRp;
  let late: LogoutRp;
  let gone: LogoutRp;
  const clients = new Map<string, client.Configuration>();

  beforeAll(async () => {
    const [a, l, g] = await freePorts(3);
    app = new LogoutRp(a, { issuer: () => url, audience: 'app' });
    late = new LogoutRp(l, { issuer: () => url, audience: 'late' });
    gone = new LogoutRp(g, { issuer: () => url, audience: 'gone' });
    const other = (id: string, rp: LogoutRp): Record<string, string> => ({
      [`OIDC_CLIENTS_${id.toUpperCase()}_CLIENT_ID`]: id,
      [`OIDC_CLIENTS_${id.toUpperCase()}_CLIENT_SECRET`]: SECRET(id),
      [`OIDC_CLIENTS_${id.toUpperCase()}_REDIRECT_URIS`]: CALLBACK(id),
      [`OIDC_CLIENTS_${id.toUpperCase()}_BACKCHANNEL_LOGOUT_URI`]: rp.uri,
    });
    gw = await startOidcGateway(
      {
        ...APP_CLIENT_ENV,
        OIDC_CLIENTS_APP_BACKCHANNEL_LOGOUT_URI: app.uri,
        ...other('late', late),
        ...other('gone', gone),
        // A short bound, so giving up is seen within the test.
        OIDC_BACKCHANNEL_LOGOUT_RETRY: '4',
      },
      { [TOKENS.AuditLog]: audit },
    );
    url = gw.url;
    await app.up();
    clients.set('app', await discoverClient(url, 'app', APP_SECRET));
    for (const id of ['late', 'gone']) clients.set(id, await discoverClient(url, id, SECRET(id)));
  });
  afterAll(async () => {
    await Promise.all([app.down(), late.down(), gone.down()]);
    await gw.close();
  });

  const rpOf = (id: string): client.Configuration => clients.get(id) as client.Configuration;
  const signIn = (browser: Browser, id = 'app') =>
    codeFlow(browser, rpOf(id), id === 'app' ? undefined : CALLBACK(id), { scope: 'openid offline_access', prompt: 'consent' });
  const logout = (browser: Browser): Promise<Response> => browser.fetch(`${url}/api/logout`, { method: 'POST', headers: { 'sec-fetch-site': 'same-origin' } });
  const refresh = (id: string, refreshToken: string): Promise<Response> =>
    tokenRequest(rpOf(id), id, id === 'app' ? APP_SECRET : SECRET(id), { grant_type: 'refresh_token', refresh_token: refreshToken });
  const audited = (name: AuditEvent['event'], clientId: string): AuditEvent[] =>
    audit.events.filter((e) => e.event === name && (e as { client?: string }).client === clientId);

  it('advertises back-channel logout with sessions in discovery, and every ID token carries sid', async () => {
    const meta = rpOf('app').serverMetadata() as Record<string, unknown>;
    expect(meta.backchannel_logout_supported).toBe(true);
    expect(meta.backchannel_logout_session_supported).toBe(true);
    const tokens = await signIn(await loggedInBrowser(url, 'alice'));
    expect(typeof tokens.claims()?.sid).toBe('string');
  });

  it('a logout sends the app a logout token with every claim right, signed with the published keys, without waiting for the app', async () => {
    const before = app.received.length;
    const browser = await loggedInBrowser(url, 'alice');
    const tokens = await signIn(browser);
    const idToken = tokens.claims() as Record<string, unknown>;
    app.delayMs = 2_000;
    const started = Date.now();
    const answer = await logout(browser);
    const took = Date.now() - started;
    expect(answer.status).toBe(200);
    expect(took).toBeLessThan(1_500);

    const [received] = (await app.waitFor(before + 1)).slice(before);
    app.delayMs = 0;
    expect(received.header).toMatchObject({ alg: 'RS256', typ: 'logout+jwt' });
    expect(typeof received.header.kid).toBe('string');
    const { claims } = received;
    expect(claims.iss).toBe(url);
    expect(claims.aud).toBe('app');
    expect(claims.sub).toBe(idToken.sub);
    expect(claims.sid).toBe(idToken.sid);
    expect(claims.events).toEqual({ [EVENT]: {} });
    expect(typeof claims.jti).toBe('string');
    expect(claims.iat).toBeGreaterThanOrEqual(Math.floor(started / 1000) - 1);
    expect((claims.exp as number) - (claims.iat as number)).toBeGreaterThan(0);
    expect((claims.exp as number) - (claims.iat as number)).toBeLessThanOrEqual(300);
    expect(claims).not.toHaveProperty('nonce');
    expect(app.rejected).toEqual([]);
  });

  it("ends the app's refresh tokens of that session, not those of the person's other sessions", async () => {
    const ending = await loggedInBrowser(url, 'bob');
    const staying = await loggedInBrowser(url, 'bob');
    const ended = await signIn(ending);
    const kept = await signIn(staying);
    expect((await logout(ending)).status).toBe(200);
    const refused = await refresh('app', ended.refresh_token as string);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await refresh('app', kept.refresh_token as string)).status).toBe(200);
  });

  it('"sign out everywhere" tells the app of every session of the person, each by its own sid', async () => {
    const one = await loggedInBrowser(url, 'alice');
    const two = await loggedInBrowser(url, 'alice');
    const sids = [(await signIn(one)).claims()?.sid, (await signIn(two)).claims()?.sid];
    const answer = await one.fetch(`${url}/api/account/sessions/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ scope: 'all' }),
    });
    expect(answer.status).toBe(200);
    const deadline = Date.now() + 5_000;
    const got = (): unknown[] => app.received.map((r) => r.claims.sid).filter((sid) => sids.includes(sid as string));
    while (got().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(got().sort()).toEqual([...sids].sort());
  });

  it('an app that is down gets the token once it is back, the failed attempts audited', async () => {
    // Bob: "sign out everywhere" above ended alice's grants up to the next second.
    const browser = await loggedInBrowser(url, 'bob');
    const sid = (await signIn(browser, 'late')).claims()?.sid;
    expect((await logout(browser)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(audited('oidc_logout_failed', 'late').length).toBeGreaterThanOrEqual(1);
    await late.up();
    const [received] = await late.waitFor(1, 5_000);
    expect(received.claims.sid).toBe(sid);
    expect(received.claims.aud).toBe('late');
    await new Promise((r) => setTimeout(r, 100));
    expect(audited('oidc_logout_delivered', 'late')).toEqual([expect.objectContaining({ attempts: expect.any(Number) })]);
  });

  it('an app that never comes back is given up on after the bound, and that is audited', async () => {
    const browser = await loggedInBrowser(url, 'bob');
    await signIn(browser, 'gone');
    const started = Date.now();
    expect((await logout(browser)).status).toBe(200);
    const deadline = started + 10_000;
    while (audited('oidc_logout_given_up', 'gone').length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const [givenUp] = audited('oidc_logout_given_up', 'gone');
    expect(givenUp).toMatchObject({ client: 'gone', reason: 'unreachable' });
    // Not before the bound (4 s), and with attempts in between.
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_500);
    expect(audited('oidc_logout_failed', 'gone').length).toBeGreaterThanOrEqual(2);
    expect(gone.received).toEqual([]);
  });
  it('an account removed from the users file is out everywhere: its apps are told at once', async () => {
    const before = app.received.length;
    const browser = await loggedInBrowser(url, 'carol');
    const sid = (await signIn(browser)).claims()?.sid;
    const usersFile = join(gw.dir, 'users.yml');
    const text = readFileSync(usersFile, 'utf8');
    const start = text.indexOf('  - username: carol');
    const end = text.indexOf('  - username:', start + 1);
    writeFileSync(usersFile, text.slice(0, start) + (end < 0 ? '' : text.slice(end)));
    const [received] = (await app.waitFor(before + 1, 5_000)).slice(before);
    expect(received.claims.sid).toBe(sid);
    expect(audit.events).toContainEqual(expect.objectContaining({ event: 'sessions_revoked', username: 'carol', by: 'users_file', count: 1 }));
    expect((await browser.fetch(`${url}/api/user`)).status).toBe(200);
    expect(((await (await browser.fetch(`${url}/api/user`)).json()) as { isLoggedIn?: boolean }).isLoggedIn).not.toBe(true);
  });
});
