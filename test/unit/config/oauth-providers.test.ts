import { loadConfig } from '../../../src/composition/config';
import { secretFlagWarnings } from '../../../src/config/flags';
import { renderOptionsDoc, renderOptionsHelp, unknownOptionWarnings } from '../../../src/config/option-docs';
import { providerVariable } from '../../../src/config/oauth-providers';

const BASE = { APP_URL: 'https://auth.example.com', SECRET: 's'.repeat(40) };
const POCKET = {
  OAUTH_PROVIDERS_POCKET_ID_CLIENT_ID: 'id',
  OAUTH_PROVIDERS_POCKET_ID_CLIENT_SECRET: 'secret',
  OAUTH_PROVIDERS_POCKET_ID_ISSUER: 'https://id.example.com',
};

function load(env: Record<string, string>, argv: string[] = []) {
  return loadConfig({ env: { ...BASE, ...env }, argv, readFile: (p) => (p === '/run/secret' ? 'file-secret\n' : '') });
}
function problems(env: Record<string, string>): string[] {
  const result = load(env);
  return result.ok ? [] : result.problems;
}

describe('OAUTH_PROVIDERS_<ID>_… (several generic providers)', () => {
  it('reads the variable names: id in lower case with _ as -, the longest field suffix winning', () => {
    expect(providerVariable('OAUTH_PROVIDERS_CORP_SSO_CLIENT_SECRET_FILE')).toEqual({ key: 'CORP_SSO', id: 'corp-sso', field: 'CLIENT_SECRET', file: true });
    expect(providerVariable('OAUTH_PROVIDERS_X_USER_INFO_URL')).toEqual({ key: 'X', id: 'x', field: 'USER_INFO_URL', file: false });
    expect(providerVariable('OAUTH_PROVIDERS_X_COLOUR')).toBeNull();
    expect(providerVariable('OAUTH_PROVIDERS_CLIENT_ID')).toBeNull();
  });

  it('configures one provider per id, with its name, scopes, issuer and whitelist, GENERIC_* kept as generic', () => {
    const result = load({
      ...POCKET,
      OAUTH_PROVIDERS_POCKET_ID_NAME: 'Pocket ID',
      OAUTH_PROVIDERS_POCKET_ID_WHITELIST: '*@example.com',
      OAUTH_PROVIDERS_AUTHELIA_CLIENT_ID: 'a',
      OAUTH_PROVIDERS_AUTHELIA_CLIENT_SECRET_FILE: '/run/secret',
      OAUTH_PROVIDERS_AUTHELIA_AUTH_URL: 'https://a.example.com/auth',
      OAUTH_PROVIDERS_AUTHELIA_TOKEN_URL: 'https://a.example.com/token',
      OAUTH_PROVIDERS_AUTHELIA_USER_INFO_URL: 'https://a.example.com/me',
      OAUTH_PROVIDERS_AUTHELIA_SCOPES: 'openid,email',
      GENERIC_CLIENT_ID: 'g',
      GENERIC_CLIENT_SECRET: 'gs',
      GENERIC_ISSUER: 'https://kc.example.com/realms/x',
      OAUTH_AUTO_REDIRECT: 'pocket-id',
    });
    if (!result.ok) throw new Error(result.problems.join('; '));
    const { providers, generic } = result.config.oauth;
    expect(providers.map((p) => [p.id, p.name, p.issuer, p.whitelist?.kind])).toEqual([
      ['authelia', 'authelia', undefined, undefined],
      ['pocket-id', 'Pocket ID', 'https://id.example.com', 'list'],
    ]);
    expect(providers[0]).toMatchObject({ clientSecret: 'file-secret', scopes: ['openid', 'email'], userUrl: 'https://a.example.com/me' });
    expect(generic).toMatchObject({ id: 'generic', issuer: 'https://kc.example.com/realms/x', authUrl: undefined });
    expect(result.config.demo).toBe(false);
  });

  it('refuses malformed and taken ids, half-configured providers, a foreign redirect URL and INSECURE_SKIP_VERIFY', () => {
    expect(problems({ OAUTH_PROVIDERS_GITHUB_CLIENT_ID: 'x', OAUTH_PROVIDERS_GITHUB_CLIENT_SECRET: 'y', USERS: '' })).toEqual(
      expect.arrayContaining([expect.stringContaining('the provider id github is taken')]),
    );
    // A provider named like a local login method would read as that account's own sessions on the account page.
    for (const id of ['PASSWORD', 'TOTP', 'PASSKEY'])
      expect(problems({ [`OAUTH_PROVIDERS_${id}_CLIENT_ID`]: 'x', [`OAUTH_PROVIDERS_${id}_CLIENT_SECRET`]: 'y', USERS: '' })).toEqual(
        expect.arrayContaining([expect.stringContaining(`the provider id ${id.toLowerCase()} is taken`)]),
      );
    expect(problems({ OAUTH_PROVIDERS_A__B_CLIENT_ID: 'x' })).toEqual(
      expect.arrayContaining([expect.stringContaining('OAUTH_PROVIDERS_A__B_CLIENT_ID: the provider id')]),
    );
    expect(problems({ OAUTH_PROVIDERS_P_ISSUER: 'https://id.example.com' })).toEqual(
      expect.arrayContaining(['the OAuth provider p is half-configured: OAUTH_PROVIDERS_P_CLIENT_ID and OAUTH_PROVIDERS_P_CLIENT_SECRET missing']),
    );
    expect(problems({ OAUTH_PROVIDERS_P_CLIENT_ID: 'x', OAUTH_PROVIDERS_P_CLIENT_SECRET: 'y' })).toEqual(
      expect.arrayContaining([expect.stringContaining('OAUTH_PROVIDERS_P_AUTH_URL, OAUTH_PROVIDERS_P_TOKEN_URL, OAUTH_PROVIDERS_P_USER_INFO_URL missing')]),
    );
    expect(problems({ ...POCKET, OAUTH_PROVIDERS_POCKET_ID_REDIRECT_URL: 'https://elsewhere.example.com/cb' })).toEqual([
      "OAUTH_PROVIDERS_POCKET_ID_REDIRECT_URL must be https://auth.example.com/api/oauth/callback/pocket-id or unset: the gateway's callback for a provider is always its own",
    ]);
    expect(problems({ ...POCKET, OAUTH_PROVIDERS_POCKET_ID_REDIRECT_URL: 'https://auth.example.com/api/oauth/callback/pocket-id' })).toEqual([]);
    expect(problems({ ...POCKET, OAUTH_PROVIDERS_POCKET_ID_INSECURE_SKIP_VERIFY: 'true' })).toEqual([expect.stringContaining('is not supported')]);
    expect(problems({ ...POCKET, OAUTH_PROVIDERS_POCKET_ID_WHITELIST: 'not an address' })).toEqual([
      expect.stringContaining('OAUTH_PROVIDERS_POCKET_ID_WHITELIST entry'),
    ]);
  });

  it('never echoes a client secret in a problem', () => {
    const all = problems({ OAUTH_PROVIDERS_P_CLIENT_ID: 'x', OAUTH_PROVIDERS_P_CLIENT_SECRET: 'very-secret-value\u0001' }).join(' ');
    expect(all).not.toContain('very-secret-value');
  });

  it('takes the variables as --flags too, and warns about a secret given as one', () => {
    const argv = [
      '--oauth-providers-pocket-id-client-id',
      'id',
      '--oauth-providers-pocket-id-client-secret',
      'secret',
      '--oauth-providers-pocket-id-issuer',
      'https://id.example.com',
    ];
    const result = load({}, argv);
    expect(result.ok && result.config.oauth.providers.map((p) => p.id)).toEqual(['pocket-id']);
    expect(secretFlagWarnings(argv)).toEqual([expect.stringContaining('--oauth-providers-pocket-id-client-secret on the command line')]);
  });

  it('does not call valid provider variables unknown, but flags an unknown field under the prefix', () => {
    expect(unknownOptionWarnings({ ...POCKET, OAUTH_PROVIDERS_POCKET_ID_CLIENT_SECRET_FILE: '/x', OAUTH_PROVIDERS_CORP_SSO_USER_INFO_URL: 'u' })).toEqual([]);
    expect(unknownOptionWarnings({ OAUTH_PROVIDERS_POCKET_ID_USERINFO_URL: 'u' })).toEqual([
      expect.stringContaining('OAUTH_PROVIDERS_POCKET_ID_USERINFO_URL is not a Portcullis option'),
    ]);
  });

  it('shows the pattern in --help and in the documentation table', () => {
    expect(renderOptionsHelp()).toContain('--oauth-providers-<id>-client-id, --oauth-providers-<id>-client-id-file');
    expect(renderOptionsDoc()).toContain('`OAUTH_PROVIDERS_<ID>_AUTH_URL`, `OAUTH_PROVIDERS_<ID>_TOKEN_URL`, `OAUTH_PROVIDERS_<ID>_USER_INFO_URL`');
  });
});

describe('GITHUB_GROUPS, GITHUB_ORGS and GOOGLE_HOSTED_DOMAINS', () => {
  const GITHUB = { GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'secret' };
  it('turns org groups on for GITHUB_ORGS, lower-cased', () => {
    const result = load({ ...GITHUB, GITHUB_ORGS: 'Acme, labs' });
    expect(result.ok && result.config.oauth.github).toMatchObject({ groups: 'orgs', orgs: ['acme', 'labs'] });
    const teams = load({ ...GITHUB, GITHUB_GROUPS: 'teams' });
    expect(teams.ok && teams.config.oauth.github).toMatchObject({ groups: 'teams', orgs: [] });
    expect(problems({ ...GITHUB, GITHUB_GROUPS: 'all' })).toEqual(['GITHUB_GROUPS must be one of off, orgs, teams']);
  });

  it('reads Workspace domains and refuses what is not a domain', () => {
    const result = load({ GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 's', GOOGLE_HOSTED_DOMAINS: 'Example.com corp.example' });
    expect(result.ok && result.config.oauth.google?.hostedDomains).toEqual(['example.com', 'corp.example']);
    expect(problems({ GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 's', GOOGLE_HOSTED_DOMAINS: '*@example.com' })).toEqual([
      'GOOGLE_HOSTED_DOMAINS holds an entry that is not a domain name',
    ]);
  });
});

describe('the default forgot-password text with several providers', () => {
  it('names every configured provider by its button name', () => {
    const result = load({ ...POCKET, OAUTH_PROVIDERS_POCKET_ID_NAME: 'Pocket ID' });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.config.forgotPasswordMessage).toMatch(/sign in with Pocket ID, reset your password there/);
  });
});
