import { loadConfig } from '../../../src/composition/config';
import { DEFAULT_TRUSTED_PROXIES } from '../../../src/config/server';
import { flagsToEnv } from '../../../src/config/flags';
import type { Config } from '../../../src/config/load';

const HASH = '$2b$04$abcdefghijklmnopqrstuuG7SUDEqQ3DYgpmGkv9SOcr9cfM0zpa2';
const SECRET = 'a-secret-that-is-long-enough-0123456789';
const VALID = { APP_URL: 'https://auth.example.test', SECRET, USERS: `alice:${HASH}` };

function configOf(env: Record<string, string>, argv: string[] = [], files: Record<string, string> = {}): Config {
  const result = loadConfig({ env, argv, readFile: (p) => (p in files ? files[p] : fail(p)) });
  if (!result.ok) throw new Error(`unexpected problems: ${result.problems.join('; ')}`);
  return result.config;
}

function problemsOf(env: Record<string, string>, argv: string[] = [], files: Record<string, string> = {}): string[] {
  const result = loadConfig({ env, argv, readFile: (p) => (p in files ? files[p] : fail(p)) });
  if (result.ok) throw new Error('expected problems, got a valid configuration');
  return result.problems;
}

function fail(path: string): never {
  throw new Error(`ENOENT ${path}`);
}

describe('loadConfig', () => {
  it('reads a minimal configuration with the documented defaults', () => {
    const config = configOf(VALID);
    expect(config).toMatchObject({
      demo: false,
      port: 3000,
      address: '0.0.0.0',
      appUrl: 'https://auth.example.test',
      secret: SECRET,
      sessionExpirySeconds: 86400,
      cookieSecure: true,
      loginMaxRetries: 5,
      loginTimeoutSeconds: 300,
      appTitle: 'Portcullis',
      genericName: 'Generic',
      disableContinue: false,
      oauthAutoRedirect: 'none',
      logLevel: 'info',
    });
    // TRUSTED_PROXIES arrives parsed: loopback (DEFAULT_TRUSTED_PROXIES) is trusted, a private range is not.
    const base = DEFAULT_TRUSTED_PROXIES.map((cidr) => cidr.split('/')[0]);
    expect(base.map((a) => config.trustedProxies.check(a, a.includes(':') ? 'ipv6' : 'ipv4'))).toEqual(base.map(() => true));
    expect(['127.0.0.1', '127.9.9.9'].map((a) => config.trustedProxies.check(a, 'ipv4'))).toEqual([true, true]);
    expect(config.trustedProxies.check('::1', 'ipv6')).toBe(true);
    expect(['10.0.0.1', '192.168.1.1'].map((a) => config.trustedProxies.check(a, 'ipv4'))).toEqual([false, false]);
    expect(config.forgotPasswordMessage).toContain('USERS');
    expect(config.users).toEqual([{ username: 'alice', hash: HASH }]);
  });

  it('collects every problem at once', () => {
    const problems = problemsOf(
      {
        APP_URL: 'not a url',
        SECRET: 'too-short',
        SECRET_FILE: '/run/secrets/portcullis',
        USERS: `alice:not-a-hash,bob,carol:${HASH}:not-base32!`,
        TRUSTED_PROXIES: '10.0.0.0/8, 10.0.0.0/33, banana',
      },
      ['--no-such-flag=1'],
      { '/run/secrets/portcullis': 'short' },
    );
    const expected = [
      /unknown option --no-such-flag/,
      /APP_URL is not a valid URL/,
      /set either SECRET or SECRET_FILE, not both/,
      /SECRET must be at least 32 characters/,
      /USERS entry 1 \(alice\): password must be a bcrypt /,
      /USERS entry 2: expected username:password-hash/,
      /USERS entry 3 \(carol\): TOTP secret must be base32/,
      /TRUSTED_PROXIES: "10\.0\.0\.0\/33"/,
      /TRUSTED_PROXIES: "banana"/,
    ];
    for (const pattern of expected) expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(pattern)]));
    expect(problems).toHaveLength(expected.length);
  });

  it('never repeats a secret or a hash in a problem', () => {
    const problems = problemsOf({ APP_URL: 'https://auth.example.test', SECRET: 'short-secret-value', USERS: 'alice:$2b$04$short' });
    expect(problems.join('\n')).not.toContain('short-secret-value');
    expect(problems.join('\n')).not.toContain('$2b$04$short');
  });

  it('asks for APP_URL, SECRET and accounts once any option configures the gateway', () => {
    const problems = problemsOf({ APP_URL: 'https://auth.example.test' });
    expect(problems).toEqual([expect.stringMatching(/^SECRET \(or SECRET_FILE\) is required/), expect.stringMatching(/^no way to log in: set USERS/)]);
    expect(problemsOf({ USERS: `alice:${HASH}` })).toEqual([expect.stringMatching(/^APP_URL is required/), expect.stringMatching(/^SECRET/)]);
  });

  it('refuses an APP_URL that is not http(s) or carries credentials, a query or a fragment', () => {
    for (const url of ['ftp://auth.example.test', 'https://u:p@auth.example.test', 'https://auth.example.test/?x=1', 'https://auth.example.test/#x']) {
      expect(problemsOf({ ...VALID, APP_URL: url })).toEqual([expect.stringMatching(/^APP_URL must/)]);
    }
  });

  it('drops a trailing slash from APP_URL and keeps a path', () => {
    expect(configOf({ ...VALID, APP_URL: 'https://auth.example.test/' }).appUrl).toBe('https://auth.example.test');
    expect(configOf({ ...VALID, APP_URL: 'https://example.test/auth/' }).appUrl).toBe('https://example.test/auth');
  });

  it('unescapes $$ to $ in USERS, as docker-compose files need it written', () => {
    const escaped = HASH.replace(/\$/g, '$$$$');
    expect(escaped).toContain('$$2b$$04$$');
    expect(configOf({ ...VALID, USERS: `alice:${escaped}` }).users).toEqual([{ username: 'alice', hash: HASH }]);
  });

  it('reads USERS_FILE one account per line, skipping blank lines and # comments', () => {
    const file = [
      '# accounts for the staging gateway',
      `alice:${HASH}`,
      '',
      `  bob@corp.test:${HASH}:JBSWY3DPEHPK3PXPJBSWY3DP   # has TOTP`,
      '   # indented comment',
    ].join('\n');
    const config = configOf({ APP_URL: VALID.APP_URL, SECRET, USERS_FILE: '/etc/portcullis/users' }, [], { '/etc/portcullis/users': file });
    expect(config.users).toEqual([]);
    expect(config.usersFile?.path).toBe('/etc/portcullis/users');
    expect(config.usersFile?.entries).toEqual([
      { username: 'alice', hash: HASH },
      { username: 'bob@corp.test', hash: HASH, totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DP' },
    ]);
  });

  it('names the line of a bad USERS_FILE entry and refuses a name that USERS already has', () => {
    const file = `# header\nalice:${HASH}\nbroken-line\n`;
    const problems = problemsOf({ ...VALID, USERS_FILE: '/users' }, [], { '/users': file });
    expect(problems).toEqual([expect.stringMatching(/duplicate username alice/), expect.stringMatching(/^USERS_FILE line 3: expected/)]);
  });

  it('reports an unreadable SECRET_FILE or USERS_FILE without a stack trace', () => {
    const problems = problemsOf({ APP_URL: VALID.APP_URL, SECRET_FILE: '/nope', USERS_FILE: '/nope-either' });
    expect(problems).toEqual(expect.arrayContaining(['SECRET_FILE: cannot read /nope', 'USERS_FILE: cannot read /nope-either']));
  });

  it('reads SECRET_FILE and trims its trailing newline', () => {
    expect(configOf({ APP_URL: VALID.APP_URL, USERS: VALID.USERS, SECRET_FILE: '/s' }, [], { '/s': `${SECRET}\n` }).secret).toBe(SECRET);
  });

  it('accepts every option as a --kebab-case flag, as --name=value or --name value, over the environment', () => {
    const config = configOf({ ...VALID, APP_TITLE: 'from env' }, [
      '--app-url=https://login.corp.test/',
      '--app-title',
      'from flag',
      '--session-expiry',
      '3600',
      '--cookie-secure=false',
      '--trusted-proxies',
      '10.1.0.0/16,192.0.2.1',
      '--disable-continue',
    ]);
    expect(config).toMatchObject({
      appUrl: 'https://login.corp.test',
      appTitle: 'from flag',
      sessionExpirySeconds: 3600,
      cookieSecure: false,
      disableContinue: true,
    });
    expect(['10.1.200.3', '192.0.2.1', '192.0.2.2', '127.0.0.1'].map((a) => config.trustedProxies.check(a, 'ipv4'))).toEqual([true, true, false, false]);
  });

  it('turns flags into the matching variable names and reports unknown flags and stray arguments', () => {
    expect(flagsToEnv(['--login-max-retries', '3', '--log-level=debug', '--bogus', 'x', 'stray'])).toEqual({
      env: { LOGIN_MAX_RETRIES: '3', LOG_LEVEL: 'debug' },
      problems: ['unknown option --bogus', 'unexpected argument "stray"'],
    });
  });

  it('refuses numbers, booleans and levels out of range', () => {
    const problems = problemsOf({ ...VALID, PORT: '70000', SESSION_EXPIRY: '-5', LOGIN_MAX_RETRIES: 'five', COOKIE_SECURE: 'maybe', LOG_LEVEL: 'loud' });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PORT/),
        expect.stringMatching(/^SESSION_EXPIRY/),
        expect.stringMatching(/^LOGIN_MAX_RETRIES/),
        expect.stringMatching(/^COOKIE_SECURE/),
        expect.stringMatching(/^LOG_LEVEL/),
      ]),
    );
    expect(problems).toHaveLength(5);
  });

  it('makes the cookie Secure by default only for an https APP_URL', () => {
    expect(configOf({ ...VALID, APP_URL: 'http://auth.example.test' }).cookieSecure).toBe(false);
    expect(configOf({ ...VALID, APP_URL: 'http://auth.example.test', COOKIE_SECURE: 'true' }).cookieSecure).toBe(true);
  });

  it('refuses an OAuth auto-redirect while no OAuth provider exists', () => {
    expect(problemsOf({ ...VALID, OAUTH_AUTO_REDIRECT: 'github' })).toEqual([expect.stringMatching(/^OAUTH_AUTO_REDIRECT/)]);
  });

  describe('demo mode', () => {
    it('starts only when nothing configures the gateway: a random secret and a localhost APP_URL', () => {
      const a = configOf({});
      const b = configOf({});
      expect(a.demo).toBe(true);
      expect(a.appUrl).toBe('http://localhost:3000');
      expect(a.secret.length).toBeGreaterThanOrEqual(32);
      expect(a.secret).not.toBe(b.secret);
      expect(a.cookieSecure).toBe(false);
    });

    it('still runs as a demo when only listen or cosmetic options are set', () => {
      const config = configOf({ PORT: '4000', ADDRESS: '127.0.0.1', LOG_LEVEL: 'warn', APP_TITLE: 'Try me' });
      expect(config).toMatchObject({ demo: true, appUrl: 'http://localhost:4000', port: 4000, appTitle: 'Try me' });
    });

    it.each([
      ['APP_URL', VALID.APP_URL],
      ['SECRET', SECRET],
      ['USERS', VALID.USERS],
      ['SECRET_FILE', '/s'],
      ['USERS_FILE', '/u'],
    ])('never starts once %s is set, as a variable or a flag', (name, value) => {
      const files = { '/s': SECRET, '/u': VALID.USERS };
      const fromEnv = loadConfig({ env: { [name]: value }, readFile: (p) => files[p as keyof typeof files] });
      const flag = `--${name.toLowerCase().replace(/_/g, '-')}=${value}`;
      const fromFlag = loadConfig({ env: {}, argv: [flag], readFile: (p) => files[p as keyof typeof files] });
      for (const result of [fromEnv, fromFlag]) {
        // Not a demo: the rest of a real configuration is demanded instead of invented.
        expect(result.ok ? [] : result.problems).toEqual(expect.arrayContaining([expect.stringMatching(/is required|^no way to log in/)]));
      }
    });

    it('does not count blank variables as configuration', () => {
      expect(configOf({ APP_URL: '', SECRET: '  ', USERS: '' }).demo).toBe(true);
    });
  });
});

describe('UI_LANGUAGE and UI_LANGUAGES', () => {
  test('unset: the browser chooses among every language', () => {
    expect(configOf(VALID)).toMatchObject({ uiLanguage: '', uiLanguages: [] });
  });

  test('are read as catalog tags whatever the case, the list without repeats', () => {
    expect(configOf({ ...VALID, UI_LANGUAGE: 'EN', UI_LANGUAGES: 'en, EN' })).toMatchObject({ uiLanguage: 'en', uiLanguages: ['en'] });
  });

  test('a language without a catalog is refused at start-up, naming the ones there are', () => {
    expect(problemsOf({ ...VALID, UI_LANGUAGE: 'xx' })).toEqual([expect.stringMatching(/^UI_LANGUAGE must be one of en\b/)]);
    expect(problemsOf({ ...VALID, UI_LANGUAGES: 'en,klingon' })).toEqual([expect.stringContaining('UI_LANGUAGES lists a language the UI does not have')]);
  });

  test('UI_LANGUAGE outside UI_LANGUAGES is refused: the page would show a language its own menu does not offer', () => {
    expect(problemsOf({ ...VALID, UI_LANGUAGE: 'de', UI_LANGUAGES: 'fr,nl' })).toEqual([
      expect.stringContaining('UI_LANGUAGE (de) is not among UI_LANGUAGES (fr, nl)'),
    ]);
    expect(configOf({ ...VALID, UI_LANGUAGE: 'de', UI_LANGUAGES: 'FR,de' })).toMatchObject({ uiLanguage: 'de', uiLanguages: ['fr', 'de'] });
  });
});
