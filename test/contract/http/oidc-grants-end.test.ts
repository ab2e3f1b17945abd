import { SESSION_COOKIE } from '../../support/http';
import { APP_SECRET, Browser, codeFlow, loggedInBrowser, OIDC_PEOPLE, tokenRequest, useOidcGateway, writeOidcPeople } from '../../support/oidc-gateway';

const OTHER = 'https://other.example.test/cb';
const OTHER_SECRET = `${APP_SECRET}-other`;
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What an app holds for a person (its grant: refresh and access tokens) ends when the person's
 * sessions end for good: "sign out everywhere" on the account page, or a changed credential.
 */
describe('OpenID Connect grants end with "sign out everywhere" and a credential change', () => {
  const oidc = useOidcGateway(
    {
      OIDC_CLIENTS_APP_NAME: 'The App',
      OIDC_CLIENTS_OTHER_CLIENT_ID: 'other',
      OIDC_CLIENTS_OTHER_CLIENT_SECRET: OTHER_SECRET,
      OIDC_CLIENTS_OTHER_REDIRECT_URIS: OTHER,
    },
    { clients: { other: OTHER_SECRET } },
  );

  const grantOf = (browser: Browser) => codeFlow(browser, oidc.app, undefined, { scope: 'openid offline_access', prompt: 'consent' });
  const userinfo = (accessToken: string): Promise<Response> =>
    fetch(oidc.app.serverMetadata().userinfo_endpoint as string, { headers: { authorization: `Bearer ${accessToken}` } });
  const refresh = (refreshToken: string): Promise<Response> =>
    tokenRequest(oidc.app, 'app', APP_SECRET, { grant_type: 'refresh_token', refresh_token: refreshToken });
  const signOut = (browser: Browser, scope: 'all' | 'others'): Promise<Response> =>
    browser.fetch(`${oidc.gw.url}/api/account/sessions/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ scope }),
    });

  async function expectEnded(tokens: { access_token: string; refresh_token?: string }): Promise<void> {
    expect((await userinfo(tokens.access_token)).status).toBe(401);
    const refreshed = await refresh(tokens.refresh_token as string);
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as { error: string }).error).toBe('invalid_grant');
  }

  it('"sign out everywhere" ends every grant of the person, and a later login gets one that works', async () => {
    const browser = await loggedInBrowser(oidc.gw.url, 'bob');
    const tokens = await grantOf(browser);
    const other = await grantOf(await loggedInBrowser(oidc.gw.url, 'bob'));
    const alice = await grantOf(await loggedInBrowser(oidc.gw.url, 'alice'));
    expect((await userinfo(tokens.access_token)).status).toBe(200);

    expect((await signOut(browser, 'all')).status).toBe(200);

    await expectEnded(tokens);
    await expectEnded(other);
    // Someone else's grant is not touched.
    expect((await refresh(alice.refresh_token as string)).status).toBe(200);
    await pause(1100);
    const again = await grantOf(await loggedInBrowser(oidc.gw.url, 'bob'));
    expect((await refresh(again.refresh_token as string)).status).toBe(200);
  });

  it('"sign out everywhere else" ends the grants too, and keeps this browser logged in', async () => {
    const browser = await loggedInBrowser(oidc.gw.url, 'bob');
    const tokens = await grantOf(await loggedInBrowser(oidc.gw.url, 'bob'));
    await pause(1100);
    expect((await signOut(browser, 'others')).status).toBe(200);
    await expectEnded(tokens);
    expect(browser.get(SESSION_COOKIE)).toBeDefined();
  });

  describe('the account page lists the apps holding a grant, and ends one', () => {
    const account = async (browser: Browser) =>
      (await (await browser.fetch(`${oidc.gw.url}/api/account`)).json()) as { apps: { id: string; name: string; lastLoginAt: string }[] };
    const endApp = (browser: Browser, body: unknown, headers: Record<string, string> = { 'sec-fetch-site': 'same-origin' }): Promise<Response> =>
      browser.fetch(`${oidc.gw.url}/api/account/apps/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });

    it('lists the apps the person logged in to (name and when), not those of others', async () => {
      await pause(1100);
      const browser = await loggedInBrowser(oidc.gw.url, 'alice');
      await grantOf(browser);
      await codeFlow(await loggedInBrowser(oidc.gw.url, 'bob'), oidc.client('other'), OTHER);
      const { apps } = await account(browser);
      expect(apps).toEqual([{ id: 'app', name: 'The App', lastLoginAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }]);
    });

    it("ends one app's grant: its tokens stop, the other app's go on, and the list no longer shows it", async () => {
      await pause(1100);
      const browser = await loggedInBrowser(oidc.gw.url, 'alice');
      const tokens = await grantOf(browser);
      const other = await codeFlow(browser, oidc.client('other'), OTHER, { scope: 'openid offline_access', prompt: 'consent' });
      expect((await account(browser)).apps.map((a) => a.id).sort()).toEqual(['app', 'other']);

      const ended = await endApp(browser, { id: 'app' });
      expect(ended.status).toBe(200);
      expect(((await ended.json()) as { code: string }).code).toBe('app_signed_out');

      await expectEnded(tokens);
      expect(
        (await tokenRequest(oidc.client('other'), 'other', OTHER_SECRET, { grant_type: 'refresh_token', refresh_token: other.refresh_token as string })).status,
      ).toBe(200);
      expect((await account(browser)).apps.map((a) => a.id)).toEqual(['other']);
      // The gateway session itself goes on.
      expect(browser.get(SESSION_COOKIE)).toBeDefined();
    });

    it('answers 404 for an app without a grant or unknown, 403 cross-site, 400 without an id', async () => {
      // Bob's grants to `app` were all ended above.
      const browser = await loggedInBrowser(oidc.gw.url, 'bob');
      expect((await endApp(browser, { id: 'app' })).status).toBe(404);
      expect((await endApp(browser, { id: 'nobody' })).status).toBe(404);
      expect((await endApp(browser, {})).status).toBe(400);
      expect((await endApp(browser, { id: 'app' }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      expect(
        (
          await new Browser(oidc.gw.url).fetch(`${oidc.gw.url}/api/account/apps/revoke`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"id":"app"}',
          })
        ).status,
      ).toBe(401);
    });
  });

  // Last: the users file stays changed.
  describe('a credential change', () => {
    it('a changed password ends every grant made before it; a login with the new one gets a working grant', async () => {
      // Tokens issued in the second of a "sign out everywhere" count as before it (`iat` has seconds only).
      await pause(1100);
      const tokens = await grantOf(await loggedInBrowser(oidc.gw.url, 'carol'));
      const bob = await grantOf(await loggedInBrowser(oidc.gw.url, 'bob'));
      writeOidcPeople(oidc.gw.dir, { bob: { password: 'bob-new-pw' } });
      for (let i = 0; i < 100 && (await userinfo(bob.access_token)).status === 200; i += 1) await pause(100);

      await expectEnded(bob);
      // Carol's credential did not change: her grant works.
      expect((await refresh(tokens.refresh_token as string)).status).toBe(200);
      const browser = new Browser(oidc.gw.url);
      await browser.login('bob', 'bob-new-pw');
      const fresh = await grantOf(browser);
      expect((await refresh(fresh.refresh_token as string)).status).toBe(200);
      expect(OIDC_PEOPLE.bob.password).not.toBe('bob-new-pw');
    });
  });
});
