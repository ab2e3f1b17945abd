import { loadConfig } from '../../../src/composition/config';
import type { Config } from '../../../src/config/load';

const HASH = '$2b$04$abcdefghijklmnopqrstuuG7SUDEqQ3DYgpmGkv9SOcr9cfM0zpa2';
const SECRET = 'a-secret-that-is-long-enough-0123456789';
const VALID = { APP_URL: 'https://auth.example.test', SECRET, USERS: `alice:${HASH}` };

function load(env: Record<string, string>, files: Record<string, string> = {}) {
  return loadConfig({
    env,
    readFile: (p) => {
      if (p in files) return files[p];
      throw new Error(`EACCES ${p}`);
    },
  });
}
function configOf(env: Record<string, string>, files: Record<string, string> = {}): Config {
  const result = load(env, files);
  if (!result.ok) throw new Error(`unexpected problems: ${result.problems.join('; ')}`);
  return result.config;
}
function problemsOf(env: Record<string, string>, files: Record<string, string> = {}): string[] {
  const result = load(env, files);
  if (result.ok) throw new Error('expected problems, got a valid configuration');
  return result.problems;
}

describe('APP_URL', () => {
  it('without a scheme is answered with "add https://"', () => {
    for (const url of ['auth.example.com', 'auth.example.com/', 'localhost:3000', 'auth.example.com:8443']) {
      expect(problemsOf({ ...VALID, APP_URL: url })).toEqual([`APP_URL needs a scheme: add https:// in front (APP_URL=https://${url.replace(/\/$/, '')})`]);
    }
  });

  // Issue 17 changed this deliberately: a comma list names one gateway URL per protected domain.
  it('reads a comma-separated list as several gateway URLs, the first the primary, each checked as one URL', () => {
    const config = configOf({ ...VALID, APP_URL: 'https://auth.example.com/, https://auth.example.org' });
    expect(config.appUrl).toBe('https://auth.example.com');
    expect(config.appUrls).toEqual(['https://auth.example.com', 'https://auth.example.org']);
    expect(configOf(VALID).appUrls).toEqual([configOf(VALID).appUrl]);
    // Never one URL with the host "auth.example.com,http" (the reason a list used to be refused).
    expect(problemsOf({ ...VALID, APP_URL: 'http://auth.example.com,auth.example.org' })).toEqual([
      'APP_URL needs a scheme: add https:// in front (APP_URL=https://auth.example.org)',
    ]);
    expect(problemsOf({ ...VALID, APP_URL: 'https://auth.example.com,,https://auth.example.org' })).toEqual([
      'APP_URL entry 2 is empty: separate gateway URLs with single commas',
    ]);
    expect(problemsOf({ ...VALID, APP_URL: 'https://auth.example.com https://auth.example.org' })).toEqual([
      expect.stringMatching(/^APP_URL lists several gateway URLs separated by commas/),
    ]);
  });

  it('refuses two URLs on one cookie domain, nested cookie domains, a repeated host and a public suffix as cookie domain', () => {
    expect(problemsOf({ ...VALID, APP_URL: 'https://auth.example.com,https://login.example.com' })).toEqual([
      'APP_URL entries 1 and 2 share the cookie domain example.com: one gateway URL per cookie domain (the first one covers it already)',
    ]);
    expect(problemsOf({ ...VALID, APP_URL: 'https://auth.example.com,https://auth.eu.example.com' })).toEqual([
      expect.stringMatching(/^APP_URL entries 1 and 2 overlap: the cookie domain eu\.example\.com lies inside example\.com/),
    ]);
    expect(problemsOf({ ...VALID, APP_URL: 'https://auth.example.com,https://auth.example.org,https://AUTH.example.org/x' })).toEqual([
      expect.stringMatching(/^APP_URL lists the host auth\.example\.org twice \(entries 2 and 3\)/),
    ]);
    expect(problemsOf({ ...VALID, APP_URL: 'https://auth.example.com,https://github.io' })).toEqual([
      expect.stringMatching(/^APP_URL entry 2 \(github\.io\): its cookie domain would be the public suffix github\.io/),
    ]);
    expect(problemsOf({ ...VALID, APP_URL: 'https://auth.example.com,http://auth.example.org' })).toEqual([
      expect.stringMatching(/^APP_URL lists http:\/\/ gateway URLs while the session cookie is Secure/),
    ]);
    expect(load({ ...VALID, APP_URL: 'https://auth.example.com,http://auth.example.org', COOKIE_SECURE: 'false' }).ok).toBe(true);
    // Private-section registrable domains and separate root domains are fine.
    expect(load({ ...VALID, APP_URL: 'https://auth.example.com,https://me.github.io,https://auth.example.co.uk,https://localhost:3000' }).ok).toBe(true);
  });

  it('refuses a host that is not a DNS name or an IP address', () => {
    // Each of these passes the WHATWG URL parser, which is all that was checked before.
    for (const url of [
      'https://auth_example.com',
      'https://-auth.example.com',
      'https://auth-.example.com',
      'https://auth..example.com',
      'https://auth.example.com.',
      'https://auth.example.com;x',
      'https://auth.exa$mple.com',
      `https://${'a'.repeat(64)}.example.com`,
    ]) {
      expect([url, problemsOf({ ...VALID, APP_URL: url })]).toEqual([url, [expect.stringMatching(/^APP_URL's host ".*" is not a valid host name/)]]);
    }
    // What the parser itself refuses stays refused.
    for (const url of ['https://a b.example.com', 'https://999.1.1.1', 'https://']) expect(problemsOf({ ...VALID, APP_URL: url })).toHaveLength(1);
  });

  it('accepts DNS names, IPv4 and IPv6 literals, ports, international names and a path', () => {
    expect(configOf({ ...VALID, APP_URL: 'https://auth.example.com' }).appUrl).toBe('https://auth.example.com');
    expect(configOf({ ...VALID, APP_URL: 'http://127.0.0.1:3000' }).appUrl).toBe('http://127.0.0.1:3000');
    expect(configOf({ ...VALID, APP_URL: 'http://[::1]:3000' }).appUrl).toBe('http://[::1]:3000');
    expect(configOf({ ...VALID, APP_URL: 'http://localhost:3000' }).appUrl).toBe('http://localhost:3000');
    expect(configOf({ ...VALID, APP_URL: 'https://bücher.example' }).appUrl).toBe('https://xn--bcher-kva.example');
    expect(configOf({ ...VALID, APP_URL: 'https://example.com/auth' }).appUrl).toBe('https://example.com/auth');
  });

  it('still refuses credentials (userinfo), a query and a fragment', () => {
    for (const url of ['https://user:pw@auth.example.com', 'https://auth.example.com/?a=1', 'https://auth.example.com/#x']) {
      const problems = problemsOf({ ...VALID, APP_URL: url });
      expect(problems).toEqual([expect.stringMatching(/^APP_URL must not carry credentials, a query or a fragment/)]);
      expect(problems.join()).not.toContain('pw');
    }
  });
});

describe('an unreadable SECRET_FILE', () => {
  it('is reported once, not also as a missing SECRET', () => {
    const problems = problemsOf({ APP_URL: VALID.APP_URL, USERS: VALID.USERS, SECRET_FILE: '/run/secrets/portcullis' });
    expect(problems).toEqual(['SECRET_FILE: cannot read /run/secrets/portcullis']);
  });

  it('and an unreadable LDAP_BIND_PASSWORD_FILE are each reported once', () => {
    const problems = problemsOf({
      ...VALID,
      LDAP_ADDRESS: 'ldaps://ldap.example.test',
      LDAP_BASE_DN: 'dc=example,dc=test',
      LDAP_BIND_DN: 'cn=reader,dc=example,dc=test',
      LDAP_BIND_PASSWORD_FILE: '/run/secrets/ldap',
    });
    expect(problems).toEqual(['LDAP_BIND_PASSWORD_FILE: cannot read /run/secrets/ldap']);
  });
});

describe('the default forgot-password text', () => {
  const ldap = { LDAP_ADDRESS: 'ldaps://ldap.example.test', LDAP_BASE_DN: 'dc=example,dc=test' };
  const github = { GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'a-real-looking-client-secret' };

  it('names USERS only when the accounts are in USERS', () => {
    expect(configOf(VALID).forgotPasswordMessage).toMatch(/USERS environment variable/);
  });

  it('names the users file, not USERS, for a USERS_FILE', () => {
    const message = configOf(
      { APP_URL: VALID.APP_URL, SECRET, USERS_FILE: '/etc/portcullis/users' },
      { '/etc/portcullis/users': `bob:${HASH}\n` },
    ).forgotPasswordMessage;
    expect(message).toMatch(/users file/);
    expect(message).not.toMatch(/USERS/);
  });

  it('sends directory users to whoever runs the directory', () => {
    const message = configOf({ APP_URL: VALID.APP_URL, SECRET, ...ldap }).forgotPasswordMessage;
    expect(message).toMatch(/directory \(LDAP\)/);
    expect(message).not.toMatch(/USERS/);
  });

  it('sends OAuth-only users to their provider', () => {
    const message = configOf({ APP_URL: VALID.APP_URL, SECRET, ...github }).forgotPasswordMessage;
    expect(message).toMatch(/GitHub/);
    expect(message).not.toMatch(/USERS|administrator configures/);
  });

  it('covers every configured store at once', () => {
    const message = configOf({ ...VALID, ...ldap, ...github }).forgotPasswordMessage;
    for (const part of [/USERS/, /LDAP/, /GitHub/]) expect(message).toMatch(part);
  });

  it('gives way to FORGOT_PASSWORD_MESSAGE', () => {
    expect(configOf({ ...VALID, FORGOT_PASSWORD_MESSAGE: 'Call the help desk' }).forgotPasswordMessage).toBe('Call the help desk');
  });
});
