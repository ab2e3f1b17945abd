import * as yaml from 'yaml';
import { loadConfig } from '../../../src/config/load';
import type { ConfigLibraries } from '../../../src/config/libraries';
import { configWarnings } from '../../../src/config/warnings';

const HASH = '$2b$10$abcdefghijklmnopqrstuuR5bJpR3XhV1b7HfC4oZx6cNmI9eQyGa';
const SECRET = 'k'.repeat(40);

/** Hand-written libraries: what composition hands in, without ldapts or the public-suffix list. */
function libraries(overrides: Partial<ConfigLibraries> = {}): ConfigLibraries {
  return {
    yaml: () => yaml,
    parseLdapFilter: () => undefined,
    registrableDomain: (host) => host.split('.').slice(-2).join('.'),
    isPublicName: () => false,
    ...overrides,
  };
}

describe('src/config with the libraries handed in', () => {
  const env = { APP_URL: 'https://auth.example.com', SECRET, USERS: `alice:${HASH}` };

  it('loads without composition', () => {
    const result = loadConfig({ env }, libraries());
    expect(result.ok).toBe(true);
  });

  it('checks LDAP filters with the parser it is given, and says which filter it refused', () => {
    const refuse = (filter: string): never => {
      throw new Error(`no ${filter}`);
    };
    const ldap = { LDAP_ADDRESS: 'ldaps://ldap.example.com', LDAP_BASE_DN: 'dc=example,dc=com' };
    const result = loadConfig({ env: { ...env, ...ldap } }, libraries({ parseLdapFilter: refuse }));
    expect(result.ok ? [] : result.problems).toEqual([
      'LDAP_SEARCH_FILTER is not a valid LDAP filter (RFC 4515)',
      'LDAP_GROUP_FILTER is not a valid LDAP filter (RFC 4515)',
    ]);
  });

  it('asks the public-suffix list for the cookie domains of several gateway URLs', () => {
    const twoDomains = { ...env, APP_URL: 'https://auth.example.com,https://auth.example.org' };
    expect(loadConfig({ env: twoDomains }, libraries()).ok).toBe(true);
    const noRegistrableDomain = loadConfig({ env: twoDomains }, libraries({ registrableDomain: () => null }));
    expect(noRegistrableDomain.ok ? [] : noRegistrableDomain.problems).toEqual([
      expect.stringContaining('APP_URL entry 1 (auth.example.com): its cookie domain would be the public suffix'),
      expect.stringContaining('APP_URL entry 2 (auth.example.org): its cookie domain would be the public suffix'),
    ]);
  });

  it('warns about plain http on a public name as the list it is given says', () => {
    const result = loadConfig({ env: { ...env, APP_URL: 'http://auth.example.com' } }, libraries());
    if (!result.ok) throw new Error(result.problems.join('; '));
    expect(configWarnings(result.config, () => false).some((w) => w.startsWith('APP_URL'))).toBe(false);
    expect(configWarnings(result.config, () => true).some((w) => w.startsWith('APP_URL http://auth.example.com is plain http://'))).toBe(true);
  });
});
