import { loadConfig } from '../../../src/composition/config';

const HASH = '$2b$04$abcdefghijklmnopqrstuuJ6lL2Tq3Jk0WcC8nO5s4yX1a2b3c4dE';
const BASE = { APP_URL: 'https://auth.example.com', SECRET: 'x'.repeat(40) };

function load(env: Record<string, string>, files: Record<string, string> = {}) {
  return loadConfig({
    env: { ...BASE, ...env },
    readFile: (path) => {
      if (!(path in files)) throw new Error('ENOENT');
      return files[path];
    },
  });
}

describe('configuration of user stores', () => {
  it('reads USERS_FILE in the YAML form into its own store', () => {
    const result = load({ USERS_FILE: '/etc/portcullis/users.yml' }, { '/etc/portcullis/users.yml': `users:\n  - username: alice\n    password: "${HASH}"\n` });
    expect(result.ok && result.config.usersFile).toEqual({ path: '/etc/portcullis/users.yml', entries: [{ username: 'alice', hash: HASH }] });
    expect(result.ok && result.config.users).toEqual([]);
  });

  it('lists the problems of USERS, USERS_FILE and LDAP together', () => {
    const result = load(
      { USERS: 'alice:$nohash', USERS_FILE: '/users', LDAP_ADDRESS: 'http://ldap.example.com', LDAP_SEARCH_FILTER: '(uid=alice)' },
      { '/users': `bob:${HASH}\ncarol\n` },
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual(
      expect.arrayContaining([
        'USERS entry 1 (alice): password must be a bcrypt ($2a$, $2b$, $2y$) or Argon2 ($argon2id$, $argon2i$) hash',
        'USERS_FILE line 2: expected username:password-hash[:totp-secret]',
        'LDAP_ADDRESS must start with ldap:// or ldaps://',
        'LDAP_BASE_DN is required with LDAP_ADDRESS (e.g. dc=example,dc=com)',
        'LDAP_SEARCH_FILTER must contain %s where the login goes, e.g. (uid=%s)',
      ]),
    );
  });

  it('says when a hash lost its $ signs to a shell or docker compose, and how to keep them', () => {
    // What `USERS="alice:$2b$04$abc…"` in double quotes leaves: the $-words read as (empty) variables.
    const result = load({ USERS: 'alice:b4.J6lL2Tq3Jk0WcC8nO5s4yX1a2b3c4dE' });
    const problems = !result.ok ? result.problems : [];
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('USERS entry 1 (alice): password must be a bcrypt');
    expect(problems[0]).toContain('a shell or docker compose expanded its $ signs away');
    expect(problems[0]).toContain("single quotes ('alice:$2b$…')");
    expect(problems[0]).toContain('$$ in a compose file');
  });

  it('says when USERS_FILE cannot be read', () => {
    const result = load({ USERS_FILE: '/missing' });
    expect(!result.ok && result.problems).toEqual(['USERS_FILE: cannot read /missing']);
  });

  it('builds LDAP settings with their defaults', () => {
    const result = load({ LDAP_ADDRESS: 'ldaps://ldap.example.com:636/', LDAP_BASE_DN: 'dc=example,dc=com' });
    expect(result.ok && result.config.ldap).toEqual({
      url: 'ldaps://ldap.example.com:636',
      bindDn: undefined,
      bindPassword: undefined,
      baseDn: 'dc=example,dc=com',
      searchFilter: '(uid=%s)',
      usernameAttribute: 'uid',
      mailAttribute: 'mail',
      nameAttribute: 'displayName',
      groupAttribute: undefined,
      groupBaseDn: undefined,
      groupFilter: '(|(member=%d)(uniqueMember=%d)(memberUid=%s))',
      groupNameAttribute: 'cn',
      totpAttribute: undefined,
      startTls: false,
      insecure: false,
      nestedGroups: 'off',
      timeoutMs: 5000,
      cacheTtlMs: 60000,
      accountCheckIntervalMs: 1000,
      passwordChange: false,
    });
  });

  it('turns on password changes for directory accounts with LDAP_PASSWORD_CHANGE=true', () => {
    const result = load({ LDAP_ADDRESS: 'ldap://h', LDAP_BASE_DN: 'dc=x', LDAP_PASSWORD_CHANGE: 'true' });
    expect(result.ok && result.config.ldap?.passwordChange).toBe(true);
    const stray = load({ LDAP_PASSWORD_CHANGE: 'true' });
    expect(!stray.ok && stray.problems).toContain('LDAP_PASSWORD_CHANGE set but LDAP_ADDRESS is not');
  });

  it('reads the LDAP bind password from a file without its final newline', () => {
    const result = load(
      { LDAP_ADDRESS: 'ldap://127.0.0.1:3389', LDAP_BASE_DN: 'dc=x', LDAP_BIND_DN: 'cn=svc,dc=x', LDAP_BIND_PASSWORD_FILE: '/run/secrets/ldap' },
      { '/run/secrets/ldap': ' s3cret \n' },
    );
    expect(result.ok && result.config.ldap?.bindPassword).toBe(' s3cret ');
  });

  it('refuses a bind DN without a password and a password without a bind DN, never echoing it', () => {
    const noPassword = load({ LDAP_ADDRESS: 'ldap://h', LDAP_BASE_DN: 'dc=x', LDAP_BIND_DN: 'cn=svc,dc=x' });
    expect(!noPassword.ok && noPassword.problems).toEqual(['LDAP_BIND_PASSWORD (or LDAP_BIND_PASSWORD_FILE) is required with LDAP_BIND_DN']);
    const noDn = load({ LDAP_ADDRESS: 'ldap://h', LDAP_BASE_DN: 'dc=x', LDAP_BIND_PASSWORD: 'hunter2' });
    expect(!noDn.ok && noDn.problems).toEqual(['LDAP_BIND_PASSWORD is set but LDAP_BIND_DN is not']);
  });

  it('refuses LDAP options without LDAP_ADDRESS', () => {
    const result = load({ USERS: `alice:${HASH}`, LDAP_BASE_DN: 'dc=x', LDAP_INSECURE: 'true' });
    expect(!result.ok && result.problems).toEqual(['LDAP_BASE_DN, LDAP_INSECURE set but LDAP_ADDRESS is not']);
  });

  it('accepts LDAP as the only store, and counts it as a configured gateway', () => {
    const result = loadConfig({ env: { LDAP_ADDRESS: 'ldap://h', LDAP_BASE_DN: 'dc=x' } });
    expect(!result.ok && result.problems).toEqual([
      'APP_URL is required (the public URL of the gateway, e.g. https://auth.example.com)',
      'SECRET (or SECRET_FILE) is required: at least 32 random characters',
    ]);
  });

  it('asks for some store when none is configured', () => {
    const result = load({});
    expect(!result.ok && result.problems).toEqual([
      'no way to log in: set USERS, USERS_FILE or LDAP_ADDRESS, or configure an OAuth provider (GITHUB_, GOOGLE_, GENERIC_ or OAUTH_PROVIDERS_<ID>_CLIENT_ID and _SECRET)',
    ]);
  });

  it('bounds the LDAP timeout and checks attribute names', () => {
    const result = load({ LDAP_ADDRESS: 'ldap://h', LDAP_BASE_DN: 'dc=x', LDAP_TIMEOUT: '0', LDAP_GROUP_ATTRIBUTE: 'member of' });
    expect(!result.ok && result.problems).toEqual([
      'LDAP_GROUP_ATTRIBUTE must be an attribute name such as memberOf',
      'LDAP_TIMEOUT must be a whole number from 1 to 60',
    ]);
  });

  const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

  it('reads LDAP_START_TLS and the PEM of LDAP_CA_FILE into the LDAP settings', () => {
    const result = load(
      { LDAP_ADDRESS: 'ldap://ldap.example.com', LDAP_BASE_DN: 'dc=x', LDAP_START_TLS: 'true', LDAP_CA_FILE: '/etc/ca.pem' },
      { '/etc/ca.pem': CA },
    );
    expect(result.ok && result.config.ldap).toMatchObject({ url: 'ldap://ldap.example.com', startTls: true, ca: CA, insecure: false });
  });

  it('refuses StartTLS on ldaps://, a CA file on plain ldap://, a CA file with LDAP_INSECURE, and a CA file that is unreadable or holds no certificate', () => {
    const problems = (env: Record<string, string>, files: Record<string, string> = {}) => {
      const result = load({ LDAP_BASE_DN: 'dc=x', ...env }, files);
      return result.ok ? [] : result.problems;
    };
    expect(problems({ LDAP_ADDRESS: 'ldaps://h', LDAP_START_TLS: 'true' })).toEqual([
      'LDAP_START_TLS is for ldap:// addresses: ldaps:// is TLS from the start (drop one of them)',
    ]);
    expect(problems({ LDAP_ADDRESS: 'ldap://h', LDAP_CA_FILE: '/ca.pem' }, { '/ca.pem': CA })).toEqual([
      'LDAP_CA_FILE needs TLS: set LDAP_START_TLS=true, or use an ldaps:// LDAP_ADDRESS (on plain ldap:// it would never be used)',
    ]);
    expect(problems({ LDAP_ADDRESS: 'ldaps://h', LDAP_CA_FILE: '/ca.pem', LDAP_INSECURE: 'true' }, { '/ca.pem': CA })).toEqual([
      'LDAP_CA_FILE and LDAP_INSECURE together: LDAP_INSECURE turns verification off, so the CA would be ignored (drop LDAP_INSECURE)',
    ]);
    expect(problems({ LDAP_ADDRESS: 'ldap://h', LDAP_START_TLS: 'yes', LDAP_CA_FILE: '/missing.pem' })).toEqual(['LDAP_CA_FILE: cannot read /missing.pem']);
    expect(problems({ LDAP_ADDRESS: 'ldap://h', LDAP_START_TLS: 'yes', LDAP_CA_FILE: '/key.pem' }, { '/key.pem': '-----BEGIN PRIVATE KEY-----\n' })).toEqual([
      'LDAP_CA_FILE: /key.pem holds no PEM certificate (-----BEGIN CERTIFICATE-----)',
    ]);
    expect(problems({ LDAP_ADDRESS: 'ldap://h', LDAP_START_TLS: 'maybe' })).toEqual(['LDAP_START_TLS must be true or false']);
  });

  it('checks LDAP_NESTED_GROUPS: one of off, ad, recursive; ad not with a group filter of its own; recursive needs a source of direct groups', () => {
    const problems = (env: Record<string, string>) => {
      const result = load({ LDAP_ADDRESS: 'ldap://h', LDAP_BASE_DN: 'dc=x', ...env });
      return result.ok ? [] : result.problems;
    };
    expect(problems({ LDAP_NESTED_GROUPS: 'deep' })).toEqual(['LDAP_NESTED_GROUPS must be one of off, ad, recursive']);
    expect(problems({ LDAP_NESTED_GROUPS: 'ad', LDAP_GROUP_BASE_DN: 'ou=g,dc=x', LDAP_GROUP_FILTER: '(member=%d)' })).toEqual([
      'LDAP_GROUP_FILTER and LDAP_NESTED_GROUPS=ad together: ad searches groups with its own filter (member:1.2.840.113556.1.4.1941:=<DN>); drop one',
    ]);
    expect(problems({ LDAP_NESTED_GROUPS: 'recursive' })).toEqual([
      "LDAP_NESTED_GROUPS=recursive needs the person's own groups first: set LDAP_GROUP_ATTRIBUTE (e.g. memberOf) or LDAP_GROUP_BASE_DN",
    ]);
    expect(problems({ LDAP_NESTED_GROUPS: 'AD' })).toEqual([]);
    expect(problems({ LDAP_NESTED_GROUPS: 'recursive', LDAP_GROUP_ATTRIBUTE: 'memberOf' })).toEqual([]);
    const ok = load({ LDAP_ADDRESS: 'ldap://h', LDAP_BASE_DN: 'dc=x', LDAP_NESTED_GROUPS: 'recursive', LDAP_GROUP_BASE_DN: 'ou=g,dc=x' });
    expect(ok.ok && ok.config.ldap?.nestedGroups).toBe('recursive');
  });
});
