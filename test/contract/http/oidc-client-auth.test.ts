import { APP_SECRET, authorize, CALLBACK, loggedInBrowser, tokenRequest, useOidcGateway } from '../../support/oidc-gateway';

const POSTER = 'https://poster.example.test/cb';
const POSTER_SECRET = `${APP_SECRET}-poster`;

/** A confidential client authenticates at the token endpoint the one way it is registered for; discovery offers only what works. */
describe('OpenID Connect client authentication', () => {
  const oidc = useOidcGateway(
    {
      OIDC_CLIENTS_POSTER_CLIENT_ID: 'poster',
      OIDC_CLIENTS_POSTER_CLIENT_SECRET: POSTER_SECRET,
      OIDC_CLIENTS_POSTER_REDIRECT_URIS: POSTER,
      OIDC_CLIENTS_POSTER_TOKEN_ENDPOINT_AUTH_METHOD: 'client_secret_post',
    },
    { clients: { poster: POSTER_SECRET } },
  );

  const tokenEndpoint = (): string => oidc.app.serverMetadata().token_endpoint as string;
  const postedSecret = (form: Record<string, string>): Promise<Response> =>
    fetch(tokenEndpoint(), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });

  /** A fresh code of `clientId` and what redeems it (apart from the client's credentials). */
  async function codeOf(clientId: 'app' | 'poster'): Promise<Record<string, string>> {
    const redirectUri = clientId === 'app' ? CALLBACK : POSTER;
    const { callback, verifier } = await authorize(await loggedInBrowser(oidc.gw.url), oidc.client(clientId), redirectUri);
    return { grant_type: 'authorization_code', code: callback.searchParams.get('code') as string, redirect_uri: redirectUri, code_verifier: verifier };
  }

  it('advertises only none, client_secret_basic and client_secret_post, at every endpoint', async () => {
    const metadata = (await (await fetch(`${oidc.gw.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    // client_secret_basic first: relying parties that take the first listed method (mod_auth_openidc) must not pick none.
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post', 'none']);
    for (const [key, value] of Object.entries(metadata)) if (key.endsWith('_auth_methods_supported')) expect(value).not.toContain('private_key_jwt');
    expect(JSON.stringify(metadata)).not.toMatch(/client_secret_jwt|private_key_jwt/);
  });

  it('refuses client_secret_post from a client registered for client_secret_basic, and the code still works the registered way', async () => {
    const form = await codeOf('app');
    const wrong = await postedSecret({ ...form, client_id: 'app', client_secret: APP_SECRET });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_client');
    expect((await tokenRequest(oidc.app, 'app', APP_SECRET, form)).status).toBe(200);
  });

  it('refuses client_secret_basic from a client registered for client_secret_post, and takes client_secret_post', async () => {
    const form = await codeOf('poster');
    const wrong = await tokenRequest(oidc.client('poster'), 'poster', POSTER_SECRET, form);
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_client');
    expect((await postedSecret({ ...form, client_id: 'poster', client_secret: POSTER_SECRET })).status).toBe(200);
  });
});
