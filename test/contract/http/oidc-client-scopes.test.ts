import * as client from 'openid-client';
import { APP_SECRET, authorize, codeFlow, loggedInBrowser, pkceAuthorization, useOidcGateway } from '../../support/oidc-gateway';

const NARROW = 'https://narrow.example.test';
const NARROW_SECRET = `${APP_SECRET}-narrow`;

/** OIDC_CLIENTS_<ID>_SCOPES: what a client may be granted, whatever it asks for. */
describe('a client limited by OIDC_CLIENTS_<ID>_SCOPES', () => {
  const oidc = useOidcGateway(
    {
      OIDC_CLIENTS_NARROW_CLIENT_ID: 'narrow',
      OIDC_CLIENTS_NARROW_CLIENT_SECRET: NARROW_SECRET,
      OIDC_CLIENTS_NARROW_REDIRECT_URIS: `${NARROW}/cb`,
      OIDC_CLIENTS_NARROW_SCOPES: 'openid profile',
    },
    { clients: { narrow: NARROW_SECRET } },
  );
  const narrow = (): client.Configuration => oidc.client('narrow');

  it('gets its allowed scopes: name, no e-mail, no groups', async () => {
    const tokens = await codeFlow(await loggedInBrowser(oidc.gw.url), narrow(), `${NARROW}/cb`, { scope: 'openid profile' });
    expect(tokens.claims()).toMatchObject({ preferred_username: 'alice', name: 'Alice Liddell' });
    expect(tokens.claims()).not.toHaveProperty('email');
    const info = await client.fetchUserInfo(narrow(), tokens.access_token, tokens.claims()?.sub as string);
    expect(info).not.toHaveProperty('email');
    expect(info).not.toHaveProperty('groups');
  });

  it('never receives e-mail or groups when it asks for them: the request is refused with invalid_scope', async () => {
    const browser = await loggedInBrowser(oidc.gw.url);
    for (const scope of ['openid profile email', 'openid groups', 'openid email profile groups offline_access']) {
      const { url } = await pkceAuthorization(narrow(), `${NARROW}/cb`, { scope, prompt: 'consent' });
      const done = await browser.follow(url.toString());
      expect(done.url.origin + done.url.pathname).toBe(`${NARROW}/cb`);
      expect(done.url.searchParams.get('error')).toBe('invalid_scope');
      expect(done.url.searchParams.get('code')).toBeNull();
    }
  });

  it('leaves a client without SCOPES every scope, as before', async () => {
    const { callback, verifier, state } = await authorize(await loggedInBrowser(oidc.gw.url), oidc.app, undefined, { scope: 'openid email groups' });
    const tokens = await client.authorizationCodeGrant(oidc.app, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()).toMatchObject({ email: 'alice@example.test', groups: ['admins', 'staff'] });
  });
});
