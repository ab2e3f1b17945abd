import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as yaml from 'yaml';
import { allowAuthenticatedRules, compileAccessRules } from '../../../../src/domain/access-rules';
import { autheliaDecide, parseAutheliaAccessControl, type AutheliaAccessControl } from '../../../../src/domain/import/authelia-access';
import { durationSeconds, readAutheliaSettings } from '../../../../src/domain/import/authelia-settings';
import { onPathAndQuery, translateAutheliaAccess } from '../../../../src/domain/import/authelia-translate';
import { applyTotpUris, formatUsersYaml, parseAutheliaUsers } from '../../../../src/domain/import/authelia-users';
import { compareDecisions, parseCheckRequests } from '../../../../src/domain/import/check-requests';

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures', 'import', 'authelia');
const place = (path: readonly (string | number)[]): string => path.join('.');
/** The fixture's grafana client secret as Authelia keeps it: PBKDF2-SHA512 (made with Python's hashlib). */
const GRAFANA_HASH = '$pbkdf2-sha512$310000$c8p78n7pUMll0jzvd4aK4Q$XjcHtLUZQNhNrDCJE7ntNmrm2swm6Cu8MU0pP0z6yv4ueWrR/.5.phXXgExeLysiwd9vBSotHkLLS4.UuUUxLw';

function accessControl(text: string): AutheliaAccessControl {
  const parsed = parseAutheliaAccessControl((yaml.parse(text) as { access_control: unknown }).access_control, place, () => null);
  if (!parsed.ok) throw new Error(parsed.error.join('\n'));
  return parsed.value;
}

function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

function compiled(ac: AutheliaAccessControl) {
  const rules = compileAccessRules(translateAutheliaAccess(ac).document, () => 'x');
  if (!rules.ok) throw new Error(rules.error.join('\n'));
  return rules.value;
}

describe('Authelia access_control import', () => {
  const ac = accessControl(fixture('configuration.yml'));

  it('reads every rule of the fixture (26, covering every field)', () => {
    expect(ac.rules).toHaveLength(26);
    expect(ac.defaultPolicy).toBe('deny');
    const fields = new Set(
      ac.rules.flatMap((r) =>
        Object.entries(r)
          .filter(([, v]) => v !== null && !(Array.isArray(v) && v.length === 0))
          .map(([k]) => k),
      ),
    );
    for (const f of ['domains', 'domainRegex', 'subject', 'resources', 'methods', 'networks', 'query']) expect(fields).toContain(f);
    expect(new Set(ac.rules.map((r) => r.policy))).toEqual(new Set(['bypass', 'one_factor', 'two_factor', 'deny']));
  });

  it('writes a rules file the gateway accepts', () => {
    expect(compileAccessRules(translateAutheliaAccess(ac).document, () => 'x').ok).toBe(true);
  });

  it('decides the request table as expected, and never lets in what Authelia refuses', () => {
    const checks = parseCheckRequests(fixture('requests.txt'), 'requests.txt');
    if (!checks.ok) throw new Error(checks.error.join('\n'));
    const results = compareDecisions(checks.value, (r) => autheliaDecide(ac, r).outcome, compiled(ac), Date.now());
    const table = Object.fromEntries(results.map((r) => [r.text.replace(/^(\S+) https:\/\//, '$1 '), `${r.source} / ${r.portcullis}`]));
    expect(table).toEqual({
      'GET public.example.com/anything': 'allow / allow',
      'GET app.example.com/health': 'allow / allow',
      'GET app.example.com/static/app.js': 'allow / allow',
      'GET app.example.com/': 'login / login',
      'GET app.example.com/ user=bob groups=staff': 'allow / allow',
      'GET app.example.com/admin user=alice groups=admins,dev factors=2': 'allow / allow',
      'GET app.example.com/admin user=alice groups=admins,dev': 'second_factor / step_up',
      'GET app.example.com/admin/users user=bob groups=staff factors=2': 'deny / deny',
      // Stricter: the deny entry for /admin also catches /ADMIN (Portcullis ignores case in entries).
      'GET app.example.com/ADMIN user=bob groups=staff': 'allow / deny',
      'POST app.example.com/items user=bob groups=staff': 'second_factor / step_up',
      'POST app.example.com/items user=bob groups=staff factors=2': 'allow / allow',
      'GET intranet.example.com/ ip=10.1.2.3': 'allow / allow',
      'GET intranet.example.com/ user=bob ip=203.0.113.50': 'second_factor / deny',
      'GET intranet.example.com/ user=alice factors=2 ip=203.0.113.50': 'allow / allow',
      'GET git.example.com/repo user=alice groups=dev': 'allow / allow',
      'GET git.example.com/repo user=alice groups=admins': 'deny / deny',
      // Stricter: rule 9's entry refuses people outside its subject; Authelia goes on to rules 10 and 15.
      'GET git.example.com/repo user=carol groups=ops factors=2': 'allow / deny',
      'GET git.example.com/repo user=bob groups=staff': 'allow / deny',
      'GET docs.example.org/ user=erin': 'allow / allow',
      // Stricter: hosts chosen by a placeholder or a regular expression are refused.
      'GET alice.users.example.org/ user=alice factors=2': 'allow / deny',
      'GET bob.home.example.org/ user=bob': 'allow / deny',
      // Stricter: (?i) dropped from a public path, and a later entry matches every path.
      'GET media.example.com/share/photo.jpg': 'login / login',
      'GET media.example.com/files/x?dl=1 user=bob groups=staff factors=2': 'allow / allow',
      'GET media.example.com/Library/a user=carol': 'allow / deny',
      'GET media.example.com/Library/a user=carol factors=2': 'allow / deny',
      'GET media.example.com/ user=carol ip=203.0.113.9 factors=2': 'deny / deny',
      'GET other.example.com/ user=bob groups=staff': 'allow / allow',
      'GET other.example.com/api/x?token=1 user=carol': 'allow / deny',
      'GET unknown.example.net/ user=alice factors=2': 'allow / deny',
    });
    expect(results.filter((r) => r.wider)).toEqual([]);
  });

  it('names every rule in the report, and every rule it could not express exactly as stricter', () => {
    const { lines } = translateAutheliaAccess(ac);
    for (const rule of ac.rules) expect(lines.some((l) => l.rule === rule.number)).toBe(true);
    const stricter = new Set(lines.filter((l) => l.stricter !== null).map((l) => l.rule));
    // 2: later entries take some of its public paths; 9, 10, 15: subjects; 11, 13, 14: hosts by
    // regex or placeholder; 16, 22: query; 17, 20, 21: networks; 18: (?i); 19: oauth2 subject;
    // 23: AND of groups; 24: another letter case; 25: its catch-all entry hides public paths.
    expect([...stricter].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([2, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    for (const exact of [1, 3, 4, 5, 6, 7, 8, 12, 26]) expect(stricter.has(exact)).toBe(false);
  });

  it('keeps an exact translation exact: public paths, a group with a second factor, a deny, methods', () => {
    const simple = accessControl(`
access_control:
  default_policy: deny
  rules:
    - { domain: wiki.example.com, resources: ['^/public/.*$'], policy: bypass }
    - { domain: wiki.example.com, resources: ['^/admin([/?].*)?$'], subject: ['group:admins'], policy: two_factor }
    - { domain: wiki.example.com, resources: ['^/admin([/?].*)?$'], policy: deny }
    - { domain: wiki.example.com, policy: one_factor }
`);
    const t = translateAutheliaAccess(simple);
    expect(t.lines.filter((l) => l.stricter !== null)).toEqual([]);
    const rules = compiled(simple);
    const checks = parseCheckRequests(
      [
        'GET https://wiki.example.com/public/a',
        'GET https://wiki.example.com/public/a?x=1',
        'GET https://wiki.example.com/publicx',
        'GET https://wiki.example.com/admin user=bob',
        'GET https://wiki.example.com/admin?y=2 user=ann groups=admins factors=2',
        'GET https://wiki.example.com/admin user=ann groups=admins',
        'GET https://wiki.example.com/x user=bob',
        'GET https://else.example.com/x user=bob',
      ].join('\n'),
      'r',
    );
    if (!checks.ok) throw new Error(checks.error.join('\n'));
    const results = compareDecisions(checks.value, (r) => autheliaDecide(simple, r).outcome, rules, Date.now());
    expect(results.map((r) => `${r.source}/${r.portcullis}`)).toEqual([
      'allow/allow',
      'allow/allow',
      'login/login',
      'deny/deny',
      'allow/allow',
      'second_factor/step_up',
      'allow/allow',
      'deny/deny',
    ]);
  });

  it('--check marks a request the written rules let in and Authelia refuses', () => {
    const deny = accessControl('access_control:\n  default_policy: deny\n');
    const checks = parseCheckRequests('GET https://x.example.com/ user=bob\nGET https://x.example.com/', 'r');
    if (!checks.ok) throw new Error('requests');
    const results = compareDecisions(checks.value, (r) => autheliaDecide(deny, r).outcome, allowAuthenticatedRules(), Date.now());
    expect(results.map((r) => [r.source, r.portcullis, r.wider])).toEqual([
      ['deny', 'allow', true],
      ['deny', 'login', false],
    ]);
    expect(parseCheckRequests('GET https://x/ usr=bob', 'r.txt')).toEqual({
      ok: false,
      error: ['r.txt: line 1: unknown field "usr=bob" (known: user, groups, ip, factors)'],
    });
  });

  it('an entry catches at least what its resources match, whatever their form (alternatives, no $)', () => {
    const ac = accessControl(`
access_control:
  default_policy: one_factor
  rules:
    - { domain: a.example.com, resources: ['^/a$|^/b$', '^/c'], policy: deny }
    - { domain: a.example.com, resources: ['^/open/'], policy: bypass }
`);
    const checks = parseCheckRequests(
      ['/a', '/b', '/c', '/cx?y=1', '/a?x=1', '/open/x', '/open/x?q=1'].map((p) => `GET https://a.example.com${p} user=bob`).join('\n'),
      'r',
    );
    if (!checks.ok) throw new Error('requests');
    const results = compareDecisions(checks.value, (r) => autheliaDecide(ac, r).outcome, compiled(ac), Date.now());
    expect(results.map((r) => `${r.source}/${r.portcullis}`)).toEqual([
      'deny/deny',
      'deny/deny',
      'deny/deny',
      'deny/deny',
      'allow/allow',
      'allow/allow',
      'allow/allow',
    ]);
    // Anonymous: /open/x is public in Authelia; without a query Portcullis cannot tell "^/open/" apart, so it asks a login.
    const anon = parseCheckRequests('GET https://a.example.com/open/x\nGET https://a.example.com/open/x?q=1', 'r');
    if (!anon.ok) throw new Error('requests');
    expect(compareDecisions(anon.value, (r) => autheliaDecide(ac, r).outcome, compiled(ac), Date.now()).map((r) => `${r.source}/${r.portcullis}`)).toEqual([
      'allow/login',
      'allow/allow',
    ]);
    expect(translateAutheliaAccess(ac).lines.find((l) => l.rule === 2)?.stricter).toMatch(/does not end with \$ is public only with a query string/);
  });

  it('a resource is matched on the path alone without a query, on path?query with one', () => {
    const r = new RegExp(onPathAndQuery(['^/health$']).regex);
    expect(r.test('/health?')).toBe(true);
    expect(r.test('/health?x=1')).toBe(false);
    expect(r.test('/healthz?')).toBe(false);
  });

  it('refuses bad input with the place: unknown key, unknown policy, a regex that does not compile, an unknown network', () => {
    const parsed = parseAutheliaAccessControl(
      {
        default_policy: 'one_factor',
        rules: [
          { domain: 'a.example.com', policy: 'allow' },
          { domain: 'a.example.com', resources: ['^/(unclosed'], policy: 'deny' },
          { domain: 'a.example.com', networks: ['nowhere'], policy: 'deny' },
          { domain: 'a.example.com', polcy: 'deny', policy: 'deny' },
          { domain: 'a.example.com', subject: 'user:x', policy: 'bypass' },
          { domain: 'a.example.com', resources: ['^/[[:alpha:]]+$', '^/\\p{L}'], policy: 'deny' },
          { domain: 'a.example.com', resources: [], methods: [], subject: [], policy: 'deny' },
        ],
      },
      place,
      () => null,
    );
    expect(parsed.ok).toBe(false);
    const text = parsed.ok ? '' : parsed.error.join('\n');
    expect(text).toContain('rules.0.policy: unknown policy "allow"');
    expect(text).toContain('rules.1.resources.0: the regular expression "^/(unclosed" does not compile');
    expect(text).toContain('rules.2.networks: "nowhere" is not an IP address or CIDR nor a network named in access_control.networks');
    expect(text).toContain('rules.3.polcy: unknown key "polcy"');
    expect(text).toContain('rules.4.subject: a bypass rule cannot have a subject');
    expect(text).toContain('rules.5.resources.0: the regular expression "^/[[:alpha:]]+$" uses RE2 syntax ("[[:")');
    expect(text).toContain('rules.5.resources.1: the regular expression "^/\\p{L}" uses RE2 syntax');
    expect(text).not.toContain('rules.6');
  });
});

describe('Authelia users, TOTP and settings import', () => {
  const usersDoc = yaml.parse(fixture('users_database.yml')) as unknown;

  it('keeps bcrypt, argon2id and argon2i hashes and disables an account whose hash cannot be verified', () => {
    const users = parseAutheliaUsers(usersDoc, place);
    if (!users.ok) throw new Error(users.error.join('\n'));
    const byName = Object.fromEntries(users.value.accounts.map((a) => [a.username, a]));
    expect(byName.alice.password).toMatch(/^\$argon2id\$/);
    expect(byName.carol.password).toMatch(/^\$argon2i\$/);
    expect(byName.bob.password).toMatch(/^\$2b\$/);
    expect(byName.dave).toMatchObject({ password: null, disabled: true });
    expect(byName.erin.disabled).toBe(true);
    expect(byName.alice).toMatchObject({ name: 'Alice Liddell', email: 'alice@example.com', groups: ['admins', 'dev'] });
    expect(users.value.disabledForHash).toEqual(['dave']);
    expect(users.value.report.join('\n')).toContain('user dave: imported DISABLED: a SHA-512 crypt hash cannot be verified');
    const written = formatUsersYaml(users.value.accounts, () => '$2b$10$unusable');
    const back = yaml.parse(written) as { users: { username: string; password: string; disabled?: boolean }[] };
    expect(back.users.find((u) => u.username === 'dave')).toMatchObject({ password: '$2b$10$unusable', disabled: true });
  });

  it('carries SHA1/30 s/6-digit TOTP secrets and names the others', () => {
    const users = parseAutheliaUsers(usersDoc, place);
    if (!users.ok) throw new Error('users');
    const totp = applyTotpUris(users.value.accounts, fixture('totp.txt'), 'totp.txt');
    if (!totp.ok) throw new Error(totp.error.join('\n'));
    expect(totp.value.accounts.find((a) => a.username === 'alice')?.totpSecret).toBe('KRUGS4ZANFZSAYLMNFRWKJ3TEBZWKY3S');
    expect(totp.value.accounts.find((a) => a.username === 'bob')?.totpSecret).toBeNull();
    expect(totp.value.report.join('\n')).toMatch(/bob's secret uses SHA256/);
    expect(totp.value.report.join('\n')).toMatch(/no account "nobody"/);
    expect(applyTotpUris(users.value.accounts, 'otpauth://totp/x:alice?secret=not-base32', 't.txt')).toEqual({
      ok: false,
      error: ['t.txt: line 1: the secret is not base32 of at least 80 bits'],
    });
  });

  it('carries the session, regulation and OIDC clients to the environment and lists the rest', () => {
    const users = parseAutheliaUsers(usersDoc, place);
    const totp = users.ok ? applyTotpUris(users.value.accounts, fixture('totp.txt'), 't') : null;
    const accounts = totp?.ok === true ? totp.value.accounts : null;
    const settings = readAutheliaSettings(yaml.parse(fixture('configuration.yml')) as Record<string, unknown>, place, accounts, () => 'N'.repeat(43));
    const env = Object.fromEntries(settings.env);
    expect(env).toMatchObject({
      APP_URL: 'https://auth.example.com',
      SESSION_EXPIRY: '43200',
      LOGIN_MAX_RETRIES: '4',
      LOGIN_TIMEOUT: '600',
      LOG_LEVEL: 'debug',
      OIDC_CLIENTS_GRAFANA_CLIENT_ID: 'grafana',
      OIDC_CLIENTS_GRAFANA_CLIENT_SECRET_HASH: GRAFANA_HASH,
      OIDC_CLIENTS_GRAFANA_ALLOWED_USERS: 'alice',
      OIDC_CLIENTS_GRAFANA_REDIRECT_URIS: 'https://grafana.example.com/login/generic_oauth',
      OIDC_CLIENTS_WIKI_APP_CLIENT_SECRET: 'a-plain-client-secret-of-enough-length-0123456789',
      OIDC_CLIENTS_WIKI_APP_SCOPES: 'openid email',
      OIDC_CLIENTS_WIKI_APP_TOKEN_ENDPOINT_AUTH_METHOD: 'client_secret_post',
    });
    expect(env.OIDC_CLIENTS_WIKI_APP_ALLOWED_USERS).toBeUndefined();
    expect(env.OIDC_CLIENTS_GRAFANA_CLIENT_SECRET).toBeUndefined();
    const report = settings.report.join('\n');
    expect(report).toContain('OIDC client grafana: its hashed secret carries over as CLIENT_SECRET_HASH');
    expect(report).not.toContain('NEW secret');
    for (const notCarried of ['session inactivity', 'totp.issuer', 'regulation.find_time', 'storage', 'notifier', 'scopes not carried over: phone'])
      expect(report).toContain(notCarried);
    expect(settings.stricter.join('\n')).toContain('OIDC client grafana: authorization_policy two_factor');
    expect(settings.problems).toEqual([]);
    expect(readAutheliaSettings({ acess_control: {} }, place, null, () => 'x').problems).toEqual([
      'acess_control: unknown key "acess_control" (not an Authelia setting)',
    ]);
  });

  it('carries each kind of client secret: Argon2 and bcrypt hashes as CLIENT_SECRET_HASH, other kinds and short secrets as a new secret, said in the report', () => {
    const argon2id = `$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$${'A'.repeat(43)}`;
    const bcrypt = `$2b$10$${'a'.repeat(53)}`;
    const clients = [
      { client_id: 'argon', client_secret: argon2id },
      { client_id: 'bee', client_secret: bcrypt },
      { client_id: 'crypt', client_secret: '$6$rounds=5000$saltsalt$secretlookinghash' },
      { client_id: 'heavy', client_secret: GRAFANA_HASH.replace('$310000$', '$9000000$') },
      { client_id: 'short', client_secret: '$plaintext$too-short' },
      { client_id: 'bare', client_secret: 'a-bare-plain-secret-of-enough-length-0123456789' },
    ].map((c) => ({ ...c, authorization_policy: 'one_factor', redirect_uris: [`https://${c.client_id}.example.com/cb`] }));
    const settings = readAutheliaSettings({ identity_providers: { oidc: { clients } } }, place, null, () => 'N'.repeat(43));
    const env = Object.fromEntries(settings.env);
    expect(env).toMatchObject({
      OIDC_CLIENTS_ARGON_CLIENT_SECRET_HASH: argon2id,
      OIDC_CLIENTS_BEE_CLIENT_SECRET_HASH: bcrypt,
      OIDC_CLIENTS_CRYPT_CLIENT_SECRET: 'N'.repeat(43),
      OIDC_CLIENTS_HEAVY_CLIENT_SECRET: 'N'.repeat(43),
      OIDC_CLIENTS_SHORT_CLIENT_SECRET: 'N'.repeat(43),
      OIDC_CLIENTS_BARE_CLIENT_SECRET: 'a-bare-plain-secret-of-enough-length-0123456789',
    });
    expect(Object.keys(env).filter((k) => k.endsWith('_CLIENT_SECRET_HASH'))).toEqual([
      'OIDC_CLIENTS_ARGON_CLIENT_SECRET_HASH',
      'OIDC_CLIENTS_BEE_CLIENT_SECRET_HASH',
    ]);
    const report = settings.report.join('\n');
    expect(report).toMatch(
      /OIDC client crypt: its secret is stored as a hash the gateway cannot verify \(a SHA-512 crypt hash cannot be verified\); a NEW secret/,
    );
    expect(report).toMatch(/OIDC client heavy: .*PBKDF2 iterations 9000000 are outside 1000 to 2000000.*a NEW secret/);
    expect(report).toMatch(/OIDC client short: its secret is shorter than 32 characters; a NEW secret/);
    expect(report).not.toContain('secretlookinghash');
  });

  it('reads Authelia durations', () => {
    expect([durationSeconds('1h30m'), durationSeconds('10 minutes'), durationSeconds(90), durationSeconds('1M'), durationSeconds('2 parsecs')]).toEqual([
      5400,
      600,
      90,
      2592000,
      null,
    ]);
  });
});

describe('Authelia cookie domains', () => {
  it("says when the cookie domain Portcullis derives from the URL differs from Authelia's", () => {
    const settings = readAutheliaSettings(
      {
        session: {
          cookies: [
            { domain: 'example.com', authelia_url: 'https://login.sso.example.com' },
            { domain: 'example.org', authelia_url: 'https://auth.example.org' },
          ],
        },
      },
      (p) => p.join('.'),
      null,
      () => 'x',
    );
    expect(Object.fromEntries(settings.env).APP_URL).toBe('https://login.sso.example.com,https://auth.example.org');
    expect(settings.report.filter((l) => l.startsWith('cookie domain'))).toEqual([
      'cookie domain: Authelia used example.com; from login.sso.example.com Portcullis derives sso.example.com: give the gateway a name one label below example.com',
    ]);
  });
});
