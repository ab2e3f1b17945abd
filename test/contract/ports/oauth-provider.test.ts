import { optionalModules } from '../../../src/composition/optional-modules';
import { GenericOAuthProvider } from '../../../src/adapters/providers/generic-oauth-provider';
import { GitHubOAuthProvider } from '../../../src/adapters/providers/github-oauth-provider';
import { GoogleOAuthProvider } from '../../../src/adapters/providers/google-oauth-provider';
import { OAuthProviderError } from '../../../src/application/ports/oauth-provider';
import { FakeOAuthProvider } from '../../support/fakes';
import { loginAtProvider, startOidcServer } from '../../support/oidc';
import { startProviderStub, STUB_CLIENT, type StubAccount } from '../../support/provider-stubs';
import { closedPort, json, startStub } from '../../support/stub-http';
import { oauthProviderContract } from './oauth-provider.contract';

const REDIRECT = 'https://auth.example.test/api/oauth/callback';
const TIMEOUT_MS = 2000;

const GITHUB_ACCOUNTS: Record<string, StubAccount> = {
  octo: {
    github: {
      login: 'octo',
      name: 'Octo Cat',
      email: 'public@elsewhere.test',
      emails: [
        { email: 'old@example.test', primary: false, verified: true },
        { email: 'octo@example.test', primary: true, verified: true },
      ],
    },
  },
  unverified: { github: { login: 'unverified', name: null, email: 'x@example.test', emails: [{ email: 'x@example.test', primary: true, verified: false }] } },
};
const GOOGLE_ACCOUNTS: Record<string, StubAccount> = {
  gina: { google: { sub: '1001', email: 'gina@example.test', email_verified: true, name: 'Gina' } },
  unverified: { google: { sub: '1002', email: 'u@example.test', email_verified: false, name: 'U' } },
};

function github(web: string, api: string) {
  return new GitHubOAuthProvider(
    { clientId: STUB_CLIENT.id, clientSecret: STUB_CLIENT.secret, webUrl: web, apiUrl: api, timeoutMs: TIMEOUT_MS },
    optionalModules.simpleOAuth2(),
  );
}
function google(base: string) {
  return new GoogleOAuthProvider(
    {
      clientId: STUB_CLIENT.id,
      clientSecret: STUB_CLIENT.secret,
      authUrl: `${base}/auth`,
      tokenUrl: `${base}/token`,
      userUrl: `${base}/v1/userinfo`,
      timeoutMs: TIMEOUT_MS,
    },
    optionalModules.simpleOAuth2(),
  );
}

oauthProviderContract('FakeOAuthProvider', async () => {
  const provider = new FakeOAuthProvider('generic');
  const down = new FakeOAuthProvider('generic');
  down.failWith = 'unreachable';
  return {
    provider,
    redirectUri: REDIRECT,
    person: { account: 'alice', email: 'alice@example.test' },
    authorize: async (url) => provider.issue(url, { email: 'alice@example.test', name: 'Alice', username: 'alice', groups: [] }),
    unreachable: down,
    close: async () => undefined,
  };
});

oauthProviderContract('GitHubOAuthProvider (local stand-in for the GitHub API)', async () => {
  const stub = await startProviderStub('github', GITHUB_ACCOUNTS);
  const port = await closedPort();
  return {
    provider: github(stub.url, `${stub.url}/api/v3`),
    redirectUri: REDIRECT,
    person: { account: 'octo', email: 'octo@example.test' },
    authorize: async (url, account) => stub.issueCode(url, account),
    unreachable: github(`http://127.0.0.1:${port}`, `http://127.0.0.1:${port}/api/v3`),
    close: () => stub.close(),
  };
});

oauthProviderContract('GoogleOAuthProvider (local stand-in for the Google API)', async () => {
  const stub = await startProviderStub('google', GOOGLE_ACCOUNTS);
  const port = await closedPort();
  return {
    provider: google(stub.url),
    redirectUri: REDIRECT,
    person: { account: 'gina', email: 'gina@example.test' },
    authorize: async (url, account) => stub.issueCode(url, account),
    unreachable: google(`http://127.0.0.1:${port}`),
    close: () => stub.close(),
  };
});

oauthProviderContract('GenericOAuthProvider (real oidc-provider server)', async () => {
  const oidc = await startOidcServer({
    clients: [{ client_id: STUB_CLIENT.id, client_secret: STUB_CLIENT.secret, redirect_uris: [REDIRECT] }],
    accounts: { dora: { email: 'dora@example.test', email_verified: true, name: 'Dora', groups: ['a'] } },
  });
  const port = await closedPort();
  const generic = (base: string) =>
    new GenericOAuthProvider(
      {
        clientId: STUB_CLIENT.id,
        clientSecret: STUB_CLIENT.secret,
        authUrl: `${base}/auth`,
        tokenUrl: `${base}/token`,
        userUrl: `${base}/me`,
        scopes: ['openid', 'email', 'profile', 'groups'],
        timeoutMs: TIMEOUT_MS,
      },
      optionalModules.simpleOAuth2(),
    );
  return {
    provider: generic(oidc.issuer),
    redirectUri: REDIRECT,
    person: { account: 'dora', email: 'dora@example.test' },
    authorize: async (url, account) => (await loginAtProvider(url, account, REDIRECT)).searchParams.get('code')!,
    unreachable: generic(`http://127.0.0.1:${port}`),
    close: () => oidc.close(),
  };
});

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'resolved',
    (e: unknown) => (e instanceof OAuthProviderError ? e.reason : `unexpected ${String(e)}`),
  );
}

describe('GitHubOAuthProvider specifics', () => {
  it('takes the primary verified address from /user/emails, not the profile e-mail, and the login as username', async () => {
    const stub = await startProviderStub('github', GITHUB_ACCOUNTS);
    try {
      const provider = github(stub.url, `${stub.url}/api/v3`);
      const url = await provider.authorizationUrl({ state: 's', codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', redirectUri: REDIRECT });
      expect(new URL(url).pathname).toBe('/login/oauth/authorize');
      expect(new URL(url).searchParams.get('scope')).toBe('read:user user:email');
      const code = stub.issueCode(url, 'octo');
      const identity = await provider.identify({ code, codeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', redirectUri: REDIRECT });
      expect(identity).toEqual({ email: 'octo@example.test', name: 'Octo Cat', username: 'octo', groups: [] });
      const code2 = stub.issueCode(url, 'unverified');
      expect((await provider.identify({ code: code2, codeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', redirectUri: REDIRECT })).email).toBe('');
    } finally {
      await stub.close();
    }
  });
});

describe('GoogleOAuthProvider specifics', () => {
  it('counts an address Google has not verified as no address', async () => {
    const stub = await startProviderStub('google', GOOGLE_ACCOUNTS);
    try {
      const provider = google(stub.url);
      const url = await provider.authorizationUrl({ state: 's', codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', redirectUri: REDIRECT });
      expect(new URL(url).searchParams.get('scope')).toBe('openid email profile');
      const identity = await provider.identify({
        code: stub.issueCode(url, 'unverified'),
        codeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
        redirectUri: REDIRECT,
      });
      expect(identity.email).toBe('');
    } finally {
      await stub.close();
    }
  });
});

describe('provider adapters facing junk and slowness', () => {
  it('reports junk from the token or user endpoint as invalid_response and a provider 5xx as unreachable', async () => {
    const junk = await startStub((req, res) => {
      switch (req.url) {
        case '/token-html':
          return json(res, 200, '<html>hi</html>', 'text/html');
        case '/token-broken':
          return json(res, 200, '{"access_token": ');
        case '/token-no-token':
          return json(res, 200, { token_type: 'bearer' });
        case '/token-500':
          return json(res, 503, { error: 'down' });
        case '/token-ok':
          return json(res, 200, { access_token: 'at', token_type: 'bearer' });
        case '/me-array':
          return json(res, 200, [1, 2]);
        case '/me-500':
          return json(res, 500, 'oops', 'text/plain');
        case '/me-redirect':
          res.writeHead(302, { location: 'https://evil.test/' });
          return res.end();
        default:
          return json(res, 404, {});
      }
    });
    const make = (token: string, user: string) =>
      new GenericOAuthProvider(
        {
          clientId: 'c',
          clientSecret: 's',
          authUrl: `${junk.url}/auth`,
          tokenUrl: `${junk.url}${token}`,
          userUrl: `${junk.url}${user}`,
          scopes: ['openid'],
          timeoutMs: TIMEOUT_MS,
        },
        optionalModules.simpleOAuth2(),
      );
    const input = { code: 'c', codeVerifier: 'v'.repeat(43), redirectUri: REDIRECT };
    try {
      expect(await reasonOf(make('/token-html', '/me-array').identify(input))).toBe('invalid_response');
      expect(await reasonOf(make('/token-broken', '/me-array').identify(input))).toBe('invalid_response');
      expect(await reasonOf(make('/token-no-token', '/me-array').identify(input))).toBe('invalid_response');
      expect(await reasonOf(make('/token-500', '/me-array').identify(input))).toBe('unreachable');
      expect(await reasonOf(make('/token-ok', '/me-array').identify(input))).toBe('invalid_response');
      expect(await reasonOf(make('/token-ok', '/me-500').identify(input))).toBe('unreachable');
      expect(await reasonOf(make('/token-ok', '/me-redirect').identify(input))).toBe('invalid_response');
    } finally {
      await junk.close();
    }
  });

  it('gives up on a provider that never answers after the configured timeout, as unreachable', async () => {
    const silent = await startStub(() => undefined);
    try {
      const provider = new GenericOAuthProvider(
        {
          clientId: 'c',
          clientSecret: 's',
          authUrl: `${silent.url}/auth`,
          tokenUrl: `${silent.url}/token`,
          userUrl: `${silent.url}/me`,
          scopes: ['openid'],
          timeoutMs: 200,
        },
        optionalModules.simpleOAuth2(),
      );
      expect(await reasonOf(provider.identify({ code: 'c', codeVerifier: 'v'.repeat(43), redirectUri: REDIRECT }))).toBe('unreachable');
    } finally {
      await silent.close();
    }
  });

  it('reads groups given as one comma-separated string', async () => {
    const stub = await startStub((req, res) => {
      if (req.url === '/token') return json(res, 200, { access_token: 'at', token_type: 'bearer' });
      return json(res, 200, { email: 'g@example.test', groups: 'one, two,,three', preferred_username: 'g' });
    });
    try {
      const provider = new GenericOAuthProvider(
        {
          clientId: 'c',
          clientSecret: 's',
          authUrl: `${stub.url}/auth`,
          tokenUrl: `${stub.url}/token`,
          userUrl: `${stub.url}/me`,
          scopes: ['openid'],
          timeoutMs: TIMEOUT_MS,
        },
        optionalModules.simpleOAuth2(),
      );
      const identity = await provider.identify({ code: 'c', codeVerifier: 'v'.repeat(43), redirectUri: REDIRECT });
      expect(identity).toEqual({ email: 'g@example.test', name: '', username: 'g', groups: ['one', 'two', 'three'] });
    } finally {
      await stub.close();
    }
  });
});
