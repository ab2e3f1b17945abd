import * as client from 'openid-client';
import { TOKENS } from '../../../src/composition/tokens';
import { capturedLogger } from '../../support/loggers';
import { SESSION_COOKIE, totpCode } from '../../support/http';
import {
  APP_SECRET,
  CALLBACK,
  RP,
  Browser,
  codeFlow as oidcCodeFlow,
  loggedInBrowser,
  OIDC_PEOPLE,
  pkceAuthorization,
  useOidcGateway,
} from '../../support/oidc-gateway';

const SPA = 'http://localhost:5173';
const ADMIN = 'https://admin.example.test';

describe('OpenID Connect flows against the running gateway', () => {
  const capture = capturedLogger('info');
  const oidc = useOidcGateway(
    {
      LOG_LEVEL: 'info',
      OIDC_CLIENTS_SPA_CLIENT_ID: 'spa',
      OIDC_CLIENTS_SPA_PUBLIC: 'true',
      OIDC_CLIENTS_SPA_REDIRECT_URIS: `${SPA}/callback`,
      OIDC_CLIENTS_ADMIN_CLIENT_ID: 'admin',
      OIDC_CLIENTS_ADMIN_CLIENT_SECRET: `${APP_SECRET}-admin`,
      OIDC_CLIENTS_ADMIN_REDIRECT_URIS: `${ADMIN}/cb`,
      OIDC_CLIENTS_ADMIN_ALLOWED_GROUPS: 'admins',
    },
    { clients: { spa: null, admin: `${APP_SECRET}-admin` }, overrides: { [TOKENS.Logger]: capture.logger } },
  );

  /** A logged-in browser's whole code flow (the `app` client unless another is named): resolves the tokens. */
  const codeFlow = (browser: Browser, config: client.Configuration = oidc.app, redirectUri = CALLBACK, params: Record<string, string> = {}) =>
    oidcCodeFlow(browser, config, redirectUri, params);

  const loggedIn = (name: keyof typeof OIDC_PEOPLE = 'alice'): Promise<Browser> => loggedInBrowser(oidc.gw.url, name);

  describe('login interaction', () => {
    it('sends a person with a gateway session straight back with a code (single sign-on), without the login page', async () => {
      const browser = await loggedIn();
      const { url } = await pkceAuthorization(oidc.app, CALLBACK);
      const res = await browser.fetch(url.toString());
      // One hop through the interaction, then the callback: never /login.
      const hops: string[] = [];
      let next: string | null = res.headers.get('location');
      while (next !== null && !next.startsWith(CALLBACK)) {
        hops.push(new URL(next, oidc.gw.url).pathname);
        next = (await browser.fetch(new URL(next, oidc.gw.url).toString())).headers.get('location');
      }
      expect(hops.some((p) => p.startsWith('/login'))).toBe(false);
      expect(new URL(next as string).searchParams.get('code')).toEqual(expect.any(String));
    });

    it('gives the same sub to the same account in every client and across logins, and another account another sub', async () => {
      const a1 = (await codeFlow(await loggedIn())).claims()?.sub;
      const a2 = (await codeFlow(await loggedIn(), oidc.client('spa'), `${SPA}/callback`)).claims()?.sub;
      const b = (await codeFlow(await loggedIn('bob'))).claims()?.sub;
      expect(a2).toBe(a1);
      expect(b).not.toBe(a1);
    });

    it('does not count a session that still owes its TOTP code: the login page first, the code after the TOTP step', async () => {
      const browser = new Browser(oidc.gw.url);
      expect((await browser.passwordStep('carol', OIDC_PEOPLE.carol.password)).status).toBe(200);
      const { url, verifier, state } = await pkceAuthorization(oidc.app, CALLBACK);
      const first = await browser.follow(url.toString());
      expect(first.url.pathname).toBe('/login');
      expect((await browser.totpStep(await totpCode())).status).toBe(200);
      const done = await browser.follow(first.url.searchParams.get('redirect_uri') as string);
      const tokens = await client.authorizationCodeGrant(oidc.app, done.url, { pkceCodeVerifier: verifier, expectedState: state });
      expect(tokens.claims()).toMatchObject({ preferred_username: 'carol', email: 'carol@example.test' });
    });

    it('asks for a login again once the gateway session ended, though the provider still remembers the person', async () => {
      const browser = await loggedIn();
      await codeFlow(browser);
      const out = await browser.fetch(`${oidc.gw.url}/api/logout`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(out.status).toBe(200);
      const { url } = await pkceAuthorization(oidc.app, CALLBACK);
      expect((await browser.follow(url.toString())).url.pathname).toBe('/login');
      const none = await pkceAuthorization(oidc.app, CALLBACK, { prompt: 'none' });
      const silent = await browser.follow(none.url.toString());
      expect(silent.url.toString().startsWith(CALLBACK)).toBe(true);
      expect(silent.url.searchParams.get('error')).toBe('login_required');
    });

    it("refuses a person outside the client's ALLOWED_GROUPS with error=access_denied at its redirect URI, and audits it", async () => {
      const browser = await loggedIn('bob');
      const { url, state } = await pkceAuthorization(oidc.client('admin'), `${ADMIN}/cb`);
      const done = await browser.follow(url.toString());
      expect(done.url.origin + done.url.pathname).toBe(`${ADMIN}/cb`);
      expect(done.url.searchParams.get('error')).toBe('access_denied');
      expect(done.url.searchParams.get('state')).toBe(state);
      expect(done.url.searchParams.get('code')).toBeNull();
      await capture.logger.flush();
      expect(capture.lines()).toContainEqual(expect.objectContaining({ msg: 'audit', event: 'oidc_access_denied', username: 'bob', client: 'admin' }));
    });

    it('lets a member of ALLOWED_GROUPS in', async () => {
      const tokens = await codeFlow(await loggedIn('alice'), oidc.client('admin'), `${ADMIN}/cb`);
      expect(tokens.claims()?.preferred_username).toBe('alice');
    });
  });

  describe('tokens', () => {
    it('releases groups only with the groups scope', async () => {
      const tokens = await codeFlow(await loggedIn(), oidc.app, CALLBACK, { scope: 'openid email profile' });
      expect(tokens.claims()).not.toHaveProperty('groups');
      const info = await client.fetchUserInfo(oidc.app, tokens.access_token, tokens.claims()?.sub as string);
      expect(info).not.toHaveProperty('groups');
      expect(info.email).toBe('alice@example.test');
    });

    it('issues a refresh token with offline_access, rotates it, and refuses the old one (and the grant) after rotation', async () => {
      const tokens = await codeFlow(await loggedIn(), oidc.app, CALLBACK, { scope: 'openid email offline_access', prompt: 'consent' });
      const first = tokens.refresh_token as string;
      expect(first).toEqual(expect.any(String));
      const refreshed = await client.refreshTokenGrant(oidc.app, first);
      const second = refreshed.refresh_token as string;
      expect(second).toEqual(expect.any(String));
      expect(second).not.toBe(first);
      expect(refreshed.claims()?.sub).toBe(tokens.claims()?.sub);
      await expect(client.refreshTokenGrant(oidc.app, first)).rejects.toMatchObject({ error: 'invalid_grant' });
      // Reuse of a rotated token means it leaked: the whole grant is revoked, the new token with it.
      await expect(client.refreshTokenGrant(oidc.app, second)).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    it('issues no refresh token without offline_access', async () => {
      const tokens = await codeFlow(await loggedIn());
      expect(tokens.refresh_token).toBeUndefined();
    });

    it('introspects a live access token for its client, and revocation ends it', async () => {
      const tokens = await codeFlow(await loggedIn());
      const live = await client.tokenIntrospection(oidc.app, tokens.access_token);
      expect(live).toMatchObject({ active: true, client_id: 'app', sub: tokens.claims()?.sub });
      await client.tokenRevocation(oidc.app, tokens.access_token);
      expect((await client.tokenIntrospection(oidc.app, tokens.access_token)).active).toBe(false);
      await expect(client.fetchUserInfo(oidc.app, tokens.access_token, tokens.claims()?.sub as string)).rejects.toBeDefined();
    });

    it("tells a client nothing about another client's token", async () => {
      const tokens = await codeFlow(await loggedIn(), oidc.client('admin'), `${ADMIN}/cb`);
      expect((await client.tokenIntrospection(oidc.app, tokens.access_token)).active).toBe(false);
    });

    it('publishes the signing keys at the JWKS endpoint without their private parts', async () => {
      const res = await fetch(oidc.app.serverMetadata().jwks_uri as string);
      const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
      expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
      for (const k of keys) for (const part of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(k).not.toHaveProperty(part);
    });
  });

  describe('RP-initiated logout', () => {
    async function confirmLogout(browser: Browser, params: Record<string, string>) {
      const page = await browser.fetch(client.buildEndSessionUrl(oidc.app, params).toString());
      expect(page.status).toBe(200);
      const html = await page.text();
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1] as string;
      const action = /action="([^"]+)"/.exec(html)?.[1] as string;
      return { html, xsrf, action };
    }

    it('asks for confirmation, then ends the gateway session for good and redirects to the registered post_logout_redirect_uri', async () => {
      const browser = await loggedIn();
      const session = browser.get(SESSION_COOKIE) as string;
      const tokens = await codeFlow(browser);
      const { html, xsrf, action } = await confirmLogout(browser, {
        id_token_hint: tokens.id_token as string,
        post_logout_redirect_uri: `${RP}/logged-out`,
        state: 'bye',
      });
      expect(html).toContain('Yes, sign me out');
      const done = await browser.fetch(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `xsrf=${xsrf}&logout=yes`,
      });
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe(`${RP}/logged-out?state=bye`);
      expect(browser.get(SESSION_COOKIE)).toBeUndefined();
      // The copied cookie is revoked on the server too (the logout use case).
      const user = await fetch(`${oidc.gw.url}/api/user`, { headers: { cookie: `${SESSION_COOKIE}=${session}` } });
      expect(((await user.json()) as { isLoggedIn: boolean }).isLoggedIn).toBe(false);
      // And the grant's tokens are gone.
      expect((await client.tokenIntrospection(oidc.app, tokens.access_token)).active).toBe(false);
    });

    it('keeps the gateway session when the person answers "No, stay signed in"', async () => {
      const browser = await loggedIn();
      const tokens = await codeFlow(browser);
      const { xsrf, action } = await confirmLogout(browser, { id_token_hint: tokens.id_token as string });
      await browser.fetch(action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `xsrf=${xsrf}` });
      const user = await browser.fetch(`${oidc.gw.url}/api/user`);
      expect(((await user.json()) as { isLoggedIn: boolean }).isLoggedIn).toBe(true);
    });
  });
});
