import * as client from 'openid-client';
import { RP, codeFlow, loggedInBrowser, useOidcGateway, type Browser } from '../../support/oidc-gateway';

const FRONT = `${RP}/frontchannel-logout?from=portcullis`;

/**
 * Issue 35, front-channel logout (OpenID Connect Front-Channel Logout 1.0): the logout answer names
 * each app's logout page with `iss` and `sid` for the page to load in hidden frames; RP-initiated
 * logout shows them itself before going on; discovery says so, and the pages' CSP lets them be framed.
 */
describe('OpenID Connect front-channel logout', () => {
  const oidc = useOidcGateway({ OIDC_CLIENTS_APP_FRONTCHANNEL_LOGOUT_URI: FRONT });
  const frontOf = (sid: unknown): string => `${FRONT}&iss=${encodeURIComponent(oidc.gw.url)}&sid=${String(sid)}`;
  const logout = (browser: Browser): Promise<Response> =>
    browser.fetch(`${oidc.gw.url}/api/logout`, { method: 'POST', headers: { 'sec-fetch-site': 'same-origin' } });

  it('is advertised in discovery', () => {
    const meta = oidc.app.serverMetadata() as Record<string, unknown>;
    expect(meta.frontchannel_logout_supported).toBe(true);
    expect(meta.frontchannel_logout_session_supported).toBe(true);
  });

  it("names the app's logout page, with iss and sid, in the logout answer, once", async () => {
    const browser = await loggedInBrowser(oidc.gw.url, 'alice');
    const sid = (await codeFlow(browser, oidc.app)).claims()?.sid;
    const res = await logout(browser);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { frontchannel?: string[] }).frontchannel).toEqual([frontOf(sid)]);
  });

  it('names none for a session that logged in to no app', async () => {
    const res = await logout(await loggedInBrowser(oidc.gw.url, 'bob'));
    expect(res.status).toBe(200);
    expect(await res.json()).not.toHaveProperty('frontchannel');
  });

  it("lets the gateway's pages frame the apps' logout pages, and nothing else", async () => {
    const csp = (await fetch(`${oidc.gw.url}/account`)).headers.get('content-security-policy') as string;
    expect(csp).toContain(`frame-src ${RP}`);
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('RP-initiated logout shows the pages in hidden frames, then goes on to the registered post_logout_redirect_uri', async () => {
    const browser = await loggedInBrowser(oidc.gw.url, 'alice');
    const tokens = await codeFlow(browser, oidc.app);
    const sid = tokens.claims()?.sid;
    const confirm = await browser.fetch(
      client.buildEndSessionUrl(oidc.app, { id_token_hint: tokens.id_token as string, post_logout_redirect_uri: `${RP}/logged-out` }).toString(),
    );
    const html = await confirm.text();
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1] as string;
    const action = /action="([^"]+)"/.exec(html)?.[1] as string;
    const done = await browser.fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `xsrf=${xsrf}&logout=yes`,
    });
    expect(done.status).toBe(200);
    expect(done.headers.get('content-security-policy')).toContain(`frame-src ${RP}`);
    const page = await done.text();
    expect(page).toContain(`<iframe src="${frontOf(sid).replace(/&/g, '&amp;')}"`);
    expect(page).toContain(`content="2;url=${RP}/logged-out"`);
    // The gateway session ended all the same.
    const user = await browser.fetch(`${oidc.gw.url}/api/user`);
    expect(((await user.json()) as { isLoggedIn: boolean }).isLoggedIn).toBe(false);
  });
});
