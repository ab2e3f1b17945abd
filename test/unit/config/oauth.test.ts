import { loadConfig } from '../../../src/composition/config';
import { buildContainer } from '../../../src/composition/container';
import { TOKENS } from '../../../src/composition/tokens';

const BASE = { APP_URL: 'https://auth.example.com', SECRET: 's'.repeat(40) };
const GENERIC = {
  GENERIC_CLIENT_ID: 'id',
  GENERIC_CLIENT_SECRET: 'secret',
  GENERIC_AUTH_URL: 'https://id.example.com/auth',
  GENERIC_TOKEN_URL: 'https://id.example.com/token',
  GENERIC_USER_URL: 'https://id.example.com/me',
};

function problems(env: Record<string, string>, readFile?: (p: string) => string): string[] {
  const result = loadConfig({ env, readFile });
  return result.ok ? [] : result.problems;
}

describe('OAuth configuration', () => {
  it('accepts a gateway whose only way in is an OAuth provider', () => {
    const result = loadConfig({ env: { ...BASE, GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'secret' } });
    expect(result.ok).toBe(true);
    if (result.ok)
      expect(result.config.oauth.github).toEqual({
        clientId: 'id',
        clientSecret: 'secret',
        url: 'https://github.com',
        apiUrl: 'https://api.github.com',
        groups: 'off',
        orgs: [],
      });
  });

  it('still refuses a gateway with neither accounts nor providers', () => {
    expect(problems(BASE).join('\n')).toMatch(/no way to log in/);
  });

  it('names every missing piece of a half-configured provider, never the secret', () => {
    const found = problems({ ...BASE, GITHUB_CLIENT_ID: 'id', GENERIC_CLIENT_SECRET: 'very-secret-value', GENERIC_AUTH_URL: 'https://id.example.com/auth' });
    expect(found).toContain('the github OAuth provider is half-configured: GITHUB_CLIENT_SECRET missing');
    expect(found).toContain('the generic OAuth provider is half-configured: GENERIC_CLIENT_ID, GENERIC_TOKEN_URL, GENERIC_USER_URL missing');
    expect(found.join('\n')).not.toContain('very-secret-value');
  });

  it('refuses provider URLs without their client id and secret', () => {
    expect(problems({ ...BASE, USERS: 'a:$2b$04$abcdefghijklmnopqrstuu', GENERIC_AUTH_URL: 'https://id.example.com/auth' }).join('\n')).toMatch(
      /GENERIC_AUTH_URL set but GENERIC_CLIENT_ID and GENERIC_CLIENT_SECRET are not/,
    );
  });

  it('reads client ids and secrets from _FILE variants', () => {
    const files: Record<string, string> = { '/run/id': 'file-id\n', '/run/secret': 'file-secret\n' };
    const result = loadConfig({ env: { ...BASE, GOOGLE_CLIENT_ID_FILE: '/run/id', GOOGLE_CLIENT_SECRET_FILE: '/run/secret' }, readFile: (p) => files[p] });
    expect(result.ok && [result.config.oauth.google?.clientId, result.config.oauth.google?.clientSecret]).toEqual(['file-id', 'file-secret']);
  });

  it('lets GitHub and Google base URLs be overridden (GitHub Enterprise, tests)', () => {
    const result = loadConfig({
      env: {
        ...BASE,
        GITHUB_CLIENT_ID: 'i',
        GITHUB_CLIENT_SECRET: 's',
        GITHUB_URL: 'https://ghe.example.com/',
        GITHUB_API_URL: 'https://ghe.example.com/api/v3',
        GOOGLE_CLIENT_ID: 'i',
        GOOGLE_CLIENT_SECRET: 's',
        GOOGLE_TOKEN_URL: 'http://127.0.0.1:9/token',
      },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.oauth.github?.url).toBe('https://ghe.example.com');
    expect(result.config.oauth.github?.apiUrl).toBe('https://ghe.example.com/api/v3');
    expect(result.config.oauth.google?.tokenUrl).toBe('http://127.0.0.1:9/token');
  });

  it('refuses a client secret with characters OAuth does not allow, without quoting it', () => {
    const found = problems({ ...BASE, GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'sécret' });
    expect(found).toContain('GITHUB_CLIENT_SECRET may hold only printable ASCII characters');
    expect(found.join('\n')).not.toContain('sécret');
  });

  it('refuses provider URLs that are not http(s)', () => {
    expect(problems({ ...BASE, ...GENERIC, GENERIC_USER_URL: 'file:///etc/passwd' })).toContain(
      'GENERIC_USER_URL must be an http(s) URL without credentials or fragment',
    );
  });

  it('splits GENERIC_SCOPES on commas or spaces and defaults to openid email profile', () => {
    const a = loadConfig({ env: { ...BASE, ...GENERIC, GENERIC_SCOPES: 'openid,email groups' } });
    const b = loadConfig({ env: { ...BASE, ...GENERIC } });
    expect(a.ok && a.config.oauth.generic?.scopes).toEqual(['openid', 'email', 'groups']);
    expect(b.ok && b.config.oauth.generic?.scopes).toEqual(['openid', 'email', 'profile']);
  });

  it('requires OAUTH_AUTO_REDIRECT to name a configured provider', () => {
    expect(problems({ ...BASE, ...GENERIC, OAUTH_AUTO_REDIRECT: 'generic' })).toEqual([]);
    expect(problems({ ...BASE, ...GENERIC, OAUTH_AUTO_REDIRECT: 'github' })).toContain('OAUTH_AUTO_REDIRECT must be none or a configured provider (generic)');
    expect(problems({ ...BASE, USERS: 'a:$2b$04$abcdefghijklmnopqrstuu', OAUTH_AUTO_REDIRECT: 'google' })).toContain(
      'OAUTH_AUTO_REDIRECT must be none: no OAuth provider is configured',
    );
  });

  it('refuses an invalid OAUTH_WHITELIST', () => {
    expect(problems({ ...BASE, ...GENERIC, OAUTH_WHITELIST: '/(/' })).toContain('OAUTH_WHITELIST is not a valid regular expression');
    expect(problems({ ...BASE, ...GENERIC, OAUTH_WHITELIST: 'alice, *@example.com' })).toContain(
      'OAUTH_WHITELIST entry "alice" is neither an e-mail address nor a *@domain pattern',
    );
  });

  it('does not start the demo when only an OAuth provider is configured', () => {
    expect(problems({ GITHUB_CLIENT_ID: 'i', GITHUB_CLIENT_SECRET: 's' }).join('\n')).toMatch(/APP_URL is required/);
  });

  it('accepts OAuth options as --kebab-case flags', () => {
    const result = loadConfig({ env: BASE, argv: ['--github-client-id', 'i', '--github-client-secret=s', '--oauth-whitelist', '*@example.com'] });
    expect(result.ok && [result.config.oauth.github?.clientId, result.config.oauth.whitelist]).toEqual([
      'i',
      { kind: 'list', emails: new Set(), domains: new Set(['example.com']) },
    ]);
  });

  it('wires every token of a gateway with all three providers', () => {
    const result = loadConfig({
      env: { ...BASE, ...GENERIC, GITHUB_CLIENT_ID: 'i', GITHUB_CLIENT_SECRET: 's', GOOGLE_CLIENT_ID: 'i', GOOGLE_CLIENT_SECRET: 's', LOG_LEVEL: 'silent' },
    });
    if (!result.ok) throw new Error(result.problems.join('; '));
    const container = buildContainer(result.config);
    for (const token of Object.values(TOKENS)) expect(container.get(token)).toBeDefined();
  });
});
