// A real OpenID Connect provider (panva's oidc-provider) for the contract tests, run as its own
// Node process because the package is ESM-only. Configuration arrives as JSON in OIDC_TEST_CONFIG:
//   { clients: [{ client_id, client_secret, redirect_uris }], accounts: { <login>: { <claims> } } }
// It listens on a free 127.0.0.1 port and prints one JSON line {"issuer": "..."} once ready.
// Logins go through oidc-provider's own development interactions (POST /interaction/:uid with
// `prompt=login&login=<account>`); consent is pre-granted so a login is one form post.
// Optional: `jwks` (private keys it signs with, so a test can sign logout tokens as this provider)
// and `backchannel: true` (back-channel logout on: ID tokens of clients registered with a
// backchannel_logout_uri carry `sid`, and GET /test/sid?account=<login> tells the last one).
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const config = JSON.parse(process.env.OIDC_TEST_CONFIG ?? '{}');
const accounts = config.accounts ?? {};

const server = createServer();
/** The `sid` of each account's last code, for GET /test/sid. */
const sids = new Map();
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: (config.clients ?? []).map((c) => ({
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      ...c,
    })),
    cookies: { keys: ['oidc-test-cookie-key-not-a-secret'] },
    ...(config.jwks ? { jwks: config.jwks } : {}),
    scopes: ['openid', 'email', 'profile', 'groups', 'offline_access'],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username'],
      groups: ['groups'],
    },
    // Every code must come with a PKCE S256 challenge; the token endpoint then checks the verifier.
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true }, backchannelLogout: { enabled: config.backchannel === true } },
    async findAccount(_ctx, sub) {
      const claims = accounts[sub];
      if (claims === undefined) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...claims }) };
    },
    async loadExistingGrant(ctx) {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email profile groups');
      await grant.save();
      return grant;
    },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Session: 600, Interaction: 600, Grant: 600 },
  });
  provider.on('authorization_code.saved', (code) => {
    if (typeof code.sid === 'string') sids.set(code.accountId, code.sid);
  });
  const callback = provider.callback();
  server.on('request', (req, res) => {
    const url = new URL(req.url, issuer);
    if (url.pathname !== '/test/sid') return callback(req, res);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ sid: sids.get(url.searchParams.get('account')) ?? null }));
  });
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Never outlive the test run that started us.
process.stdin.on('end', stop);
process.stdin.resume();
