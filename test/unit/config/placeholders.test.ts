import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { configWarnings, loadConfig } from '../../../src/composition/config';
import { secretFlagWarnings } from '../../../src/config/flags';
import type { Config } from '../../../src/config/load';

const ROOT = join(__dirname, '..', '..', '..');
const HASH = '$2b$04$abcdefghijklmnopqrstuuG7SUDEqQ3DYgpmGkv9SOcr9cfM0zpa2';
const SECRET = 'a-secret-that-is-long-enough-0123456789';
const VALID = { APP_URL: 'https://auth.example.test', SECRET, USERS: `alice:${HASH}` };

function problemsOf(env: Record<string, string>, files: Record<string, string> = {}): string[] {
  const result = loadConfig({ env, readFile: (p) => (p in files ? files[p] : fail(p)) });
  return result.ok ? [] : result.problems;
}

function configOf(env: Record<string, string>): Config {
  const result = loadConfig({ env });
  if (!result.ok) throw new Error(`unexpected problems: ${result.problems.join('; ')}`);
  return result.config;
}

function fail(path: string): never {
  throw new Error(`ENOENT ${path}`);
}

/** Every file of the shipped examples and documentation, where people copy values from. */
function documentation(): string[] {
  const files: string[] = [join(ROOT, 'README.md')];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(join(ROOT, 'examples'));
  walk(join(ROOT, 'docs'));
  return files.filter((f) => /\.(md|ya?ml|conf|template|ts|js|txt|env)$|Caddyfile$|Dockerfile$/.test(f));
}

/** `NAME: value`, `NAME=value`, `- name: NAME\n value: value` forms of a secret option, as written in the files. */
function valuesOf(option: string): { file: string; value: string }[] {
  const found: { file: string; value: string }[] = [];
  const assignment = new RegExp(`(?:^|[\\s"'{,])${option}["']?\\s*[:=]\\s*("[^"\\n]*"|'[^'\\n]*'|[^\\s,}#]+)`, 'gm');
  for (const file of documentation()) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(assignment)) {
      const value = m[1].replace(/^["']|["']$/g, '');
      // Shell substitutions and references are not values anyone copies as they are.
      if (value === '' || value.includes('$(') || value.includes('${') || value.startsWith('valueFrom') || value === '|') continue;
      found.push({ file: file.slice(ROOT.length + 1), value });
    }
  }
  return found;
}

describe('placeholder secrets copied from the examples', () => {
  it.each([
    ['change-me-to-at-least-32-random-characters-please'],
    ['change-this-to-a-long-random-secret-of-at-least-32-characters'],
    ['replace-with-a-long-random-secret-0123456789abcdef'],
    ['your-secret-goes-here-0123456789abcdefghijklmnop'],
    ['CHANGEME-CHANGEME-CHANGEME-CHANGEME-CHANGEME'],
  ])('refuses SECRET %s and names the option, never the value', (secret) => {
    const problems = problemsOf({ ...VALID, SECRET: secret });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SECRET is a placeholder/);
    expect(problems.join('\n')).not.toContain(secret);
  });

  it('refuses a placeholder SECRET given through SECRET_FILE too', () => {
    expect(problemsOf({ ...VALID, SECRET: '', SECRET_FILE: '/s' }, { '/s': 'change-me-to-at-least-32-random-characters-please\n' })[0]).toMatch(
      /^SECRET is a placeholder/,
    );
  });

  it('refuses placeholder OAuth client secrets, by option name', () => {
    const problems = problemsOf({
      ...VALID,
      GITHUB_CLIENT_ID: 'id',
      GITHUB_CLIENT_SECRET: 'your-client-secret',
      GENERIC_CLIENT_ID: 'id',
      GENERIC_CLIENT_SECRET: 'replace-with-your-client-secret',
      GENERIC_AUTH_URL: 'https://id.example.test/auth',
      GENERIC_TOKEN_URL: 'https://id.example.test/token',
      GENERIC_USER_URL: 'https://id.example.test/user',
    });
    expect(problems).toEqual([
      expect.stringMatching(/^GITHUB_CLIENT_SECRET is a placeholder/),
      expect.stringMatching(/^GENERIC_CLIENT_SECRET is a placeholder/),
    ]);
  });

  it('refuses placeholder LDAP bind passwords and Redis passwords', () => {
    const problems = problemsOf({
      ...VALID,
      LDAP_ADDRESS: 'ldaps://ldap.example.test',
      LDAP_BASE_DN: 'dc=example,dc=test',
      LDAP_BIND_DN: 'cn=reader,dc=example,dc=test',
      LDAP_BIND_PASSWORD: 'change-me',
      REDIS_URL: 'redis://:change-me-redis-password@portcullis-redis:6379/0',
    });
    expect(problems).toEqual([expect.stringMatching(/^LDAP_BIND_PASSWORD is a placeholder/), expect.stringMatching(/^REDIS_URL holds a placeholder password/)]);
  });

  it.each([
    ['the hash of the docker-compose example', '$2b$10$qh8XTM/ilzLw1WKUE1404.udAi8OZn8nKDbNvDORqMRu1KM6HS19q'],
    ['a hash that says REPLACE.WITH', '$2b$10$REPLACE.WITH.A.REAL.BCRYPT.HASH.abcdefghijklmnopqrstu'],
    ['a hash of dots', `$2b$10$${'.'.repeat(53)}`],
    ['an Argon2id hash of one letter', `$argon2id$v=19$m=65536,t=3,p=4$${'A'.repeat(22)}$${'A'.repeat(43)}`],
  ])('refuses %s in USERS and in USERS_FILE, naming the account', (_, hash) => {
    expect(problemsOf({ ...VALID, USERS: `alice:${HASH},bob:${hash}` })).toEqual([expect.stringMatching(/^USERS: bob's password hash is a placeholder/)]);
    expect(problemsOf({ ...VALID, USERS: `alice:${hash.replace(/\$/g, '$$$$')}` })).toEqual([
      expect.stringMatching(/^USERS: alice's password hash is a placeholder/),
    ]);
    expect(problemsOf({ ...VALID, USERS: '', USERS_FILE: '/u' }, { '/u': `carol:${hash}\n` })).toEqual([
      expect.stringMatching(/^USERS_FILE: carol's password hash is a placeholder/),
    ]);
  });

  it('takes a disabled account of the users file without a password for no placeholder', () => {
    expect(problemsOf({ ...VALID, USERS: '', USERS_FILE: '/u.yaml' }, { '/u.yaml': 'users:\n  - username: carol\n    disabled: true\n' })).toEqual([]);
  });

  it('refuses the documentation TOTP secret in USERS', () => {
    expect(problemsOf({ ...VALID, USERS: `bob:${HASH}:JBSWY3DPEHPK3PXP` })).toEqual([expect.stringMatching(/^USERS: bob's TOTP secret is the example/)]);
  });

  it('accepts real secrets and hashes', () => {
    expect(problemsOf(VALID)).toEqual([]);
    expect(problemsOf({ ...VALID, SECRET: 'q3Vb0rX9/8k2ZyN6cWmT1sJpHfLdAeRgUiOoPl7K+Yw=' })).toEqual([]);
  });

  it('refuses every SECRET, client secret and USERS value written in the examples, the docs and the README', () => {
    const checked: string[] = [];
    for (const option of ['SECRET', 'GITHUB_CLIENT_SECRET', 'GOOGLE_CLIENT_SECRET', 'GENERIC_CLIENT_SECRET', 'USERS', 'LDAP_BIND_PASSWORD', 'REDIS_URL']) {
      for (const { file, value } of valuesOf(option)) {
        // A Redis URL is a secret only when it carries a password.
        if (option === 'REDIS_URL' && !/:[^/@]*@/.test(value)) continue;
        const env: Record<string, string> = { ...VALID, [option]: value };
        if (option.endsWith('_CLIENT_SECRET')) {
          const provider = option.slice(0, -'_CLIENT_SECRET'.length);
          Object.assign(env, {
            [`${provider}_CLIENT_ID`]: 'id',
            GENERIC_AUTH_URL: 'https://i.example.test/a',
            GENERIC_TOKEN_URL: 'https://i.example.test/t',
            GENERIC_USER_URL: 'https://i.example.test/u',
          });
        }
        if (option === 'LDAP_BIND_PASSWORD') Object.assign(env, { LDAP_ADDRESS: 'ldaps://l.example.test', LDAP_BASE_DN: 'dc=x', LDAP_BIND_DN: 'cn=r,dc=x' });
        const problems = problemsOf(env);
        if (!problems.some((p) => p.startsWith(option))) throw new Error(`${file}: ${option} value from the documentation was accepted`);
        checked.push(`${file} ${option}`);
      }
    }
    // The scan found the examples' placeholders (guards against a regex that finds nothing).
    expect(checked).toEqual(
      expect.arrayContaining([
        'examples/kubernetes/secret.yaml SECRET',
        'examples/kubernetes/secret.yaml USERS',
        'README.md USERS',
        'examples/kubernetes/secret.yaml REDIS_URL',
      ]),
    );
  });
});

describe('OAuth open to every account of the provider', () => {
  const github = { GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'a-real-client-secret-0123456789' };

  it('is warned about when OAUTH_WHITELIST is empty and no access rules are set', () => {
    const warnings = configWarnings(configOf({ ...VALID, ...github }));
    expect(warnings).toEqual([expect.stringMatching(/^OAUTH_WHITELIST is empty and ACCESS_CONFIG is not set: every account of github can log in/)]);
  });

  it('is not warned about with a whitelist, or without OAuth', () => {
    expect(configWarnings(configOf({ ...VALID, ...github, OAUTH_WHITELIST: '*@example.test' }))).toEqual([]);
    expect(configWarnings(configOf(VALID))).toEqual([]);
  });
});

describe('a plain http:// APP_URL', () => {
  it('is warned about on a public name: cookies lose Secure', () => {
    expect(configWarnings(configOf({ ...VALID, APP_URL: 'http://auth.example.com' }))).toEqual([
      expect.stringMatching(/^APP_URL http:\/\/auth\.example\.com is plain http:\/\/ on a public name: cookies lose Secure/),
    ]);
  });

  it('is not warned about on localhost, an address, or a name for a private network', () => {
    for (const url of [
      'http://localhost:3000',
      'http://127.0.0.1:3000',
      'http://10.0.0.5',
      'http://auth.example.test',
      'http://nas.local',
      'http://auth.home.arpa',
    ])
      expect(configWarnings(configOf({ ...VALID, APP_URL: url }))).toEqual([]);
  });
});

describe('secrets given as command-line flags', () => {
  it('are warned about, naming the flag and its file or environment variant, never the value', () => {
    const warnings = secretFlagWarnings([
      '--secret',
      'abc-very-secret',
      '--github-client-secret=gh-secret',
      '--redis-url',
      'redis://:pw@r:6379',
      '--port',
      '3000',
      '--ldap-bind-password',
      'x',
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/^--secret on the command line is visible .*--secret-file/),
      expect.stringMatching(/^--github-client-secret on the command line/),
      expect.stringMatching(/^--redis-url on the command line/),
      expect.stringMatching(/^--ldap-bind-password on the command line/),
    ]);
    expect(warnings.join('\n')).not.toMatch(/abc-very-secret|gh-secret|:pw@/);
  });

  it('say nothing about flags without secrets or a Redis URL without a password', () => {
    expect(secretFlagWarnings(['--port', '3000', '--secret-file', '/run/secrets/s', '--redis-url', 'redis://r:6379'])).toEqual([]);
  });
});
