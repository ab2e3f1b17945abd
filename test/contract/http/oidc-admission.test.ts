import { APP_SECRET, codeFlow, loggedInBrowser, tokenRequest, useOidcGateway, writeOidcPeople } from '../../support/oidc-gateway';

const ADMIN = 'https://admin.example.test';
const ADMIN_SECRET = `${APP_SECRET}-admin`;
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A client's ALLOWED_GROUPS and ALLOWED_USERS admit a person to it for as long as its tokens live,
 * not only at the login: once the person leaves the group, refresh and userinfo stop at once.
 */
describe('OpenID Connect client admission holds at every refresh and userinfo', () => {
  const oidc = useOidcGateway(
    {
      OIDC_CLIENTS_ADMIN_CLIENT_ID: 'admin',
      OIDC_CLIENTS_ADMIN_CLIENT_SECRET: ADMIN_SECRET,
      OIDC_CLIENTS_ADMIN_REDIRECT_URIS: `${ADMIN}/cb`,
      OIDC_CLIENTS_ADMIN_ALLOWED_GROUPS: 'admins',
    },
    { clients: { admin: ADMIN_SECRET } },
  );

  const userinfo = (accessToken: string): Promise<Response> =>
    fetch(oidc.client('admin').serverMetadata().userinfo_endpoint as string, { headers: { authorization: `Bearer ${accessToken}` } });

  /** The userinfo answer once the users file's change has been read (its groups no longer name admins), or a refusal. */
  async function afterReload(accessToken: string): Promise<Response> {
    for (let i = 0; i < 100; i += 1) {
      const res = await userinfo(accessToken);
      if (res.status !== 200 || !((await res.clone().json()) as { groups?: string[] }).groups?.includes('admins')) return res;
      await pause(100);
    }
    throw new Error('the users file was not reloaded');
  }

  it('keeps serving a person still in the group', async () => {
    const tokens = await codeFlow(await loggedInBrowser(oidc.gw.url, 'alice'), oidc.client('admin'), `${ADMIN}/cb`, {
      scope: 'openid groups offline_access',
      prompt: 'consent',
    });
    const refreshed = await tokenRequest(oidc.client('admin'), 'admin', ADMIN_SECRET, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
    });
    expect(refreshed.status).toBe(200);
    expect((await userinfo(((await refreshed.json()) as { access_token: string }).access_token)).status).toBe(200);
  });

  // Last: the users file stays changed.
  it('refuses userinfo (401) and refresh (invalid_grant) once the person left the allowed group', async () => {
    const tokens = await codeFlow(await loggedInBrowser(oidc.gw.url, 'alice'), oidc.client('admin'), `${ADMIN}/cb`, {
      scope: 'openid groups offline_access',
      prompt: 'consent',
    });
    expect((await userinfo(tokens.access_token)).status).toBe(200);

    writeOidcPeople(oidc.gw.dir, { alice: { groups: ['staff'] } });

    const info = await afterReload(tokens.access_token);
    expect(info.status).toBe(401);
    const refreshed = await tokenRequest(oidc.client('admin'), 'admin', ADMIN_SECRET, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
    });
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as { error: string }).error).toBe('invalid_grant');
  });
});
