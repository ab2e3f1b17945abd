import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as yaml from 'yaml';
import { compileAccessRules } from '../../../../src/domain/access-rules';
import { compareDecisions, parseCheckRequests } from '../../../../src/domain/import/check-requests';
import { importTinyauth, parseEnvFile } from '../../../../src/domain/import/tinyauth';

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures', 'import', 'tinyauth');
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const place = (path: readonly (string | number)[]): string => path.join('.');

function imported() {
  const result = importTinyauth({
    env: { text: fixture('tinyauth.env'), file: 'tinyauth.env' },
    compose: { data: yaml.parse(fixture('docker-compose.yml')), place },
    config: { data: yaml.parse(fixture('tinyauth.yml')), place },
    outDir: '/srv/portcullis',
  });
  if (!result.ok) throw new Error(result.error.join('\n'));
  return result.value;
}

describe('tinyauth import', () => {
  it('carries the v3 names unchanged and renames the v5 ones, listing what does not carry', () => {
    const { env, report } = imported();
    const vars = Object.fromEntries(env);
    expect(vars).toMatchObject({
      APP_URL: 'https://auth.example.com',
      USERS: 'bob:$2b$10$d/jYG.0cvQThXoQGQ6.UQefmpv3AejlDcj9GljDw0C1ReK0kkhPa2:MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U',
      OAUTH_WHITELIST: '/@example\\.com$/',
      GENERIC_CLIENT_ID: 'tinyauth',
      SESSION_EXPIRY: '7200',
      OAUTH_PROVIDERS_POCKETID_CLIENT_ID: 'pocket',
      OAUTH_PROVIDERS_POCKETID_USER_INFO_URL: 'https://pocket.example.com/api/oidc/userinfo',
      LOG_LEVEL: 'debug',
    });
    expect(vars.GENERIC_SKIP_SSL).toBeUndefined();
    expect(report).toContain('not carried over: TINYAUTH_DATABASEPATH');
    expect(report.join('\n')).toContain('not carried over: GENERIC_SKIP_SSL');
  });

  it('turns the per-app labels, v5 YAML apps and TINYAUTH_APPS_* variables into a rules file the gateway accepts', () => {
    const { rules, secretFiles } = imported();
    const apps = rules.apps as Record<string, Record<string, unknown>>;
    expect(apps.whoami).toEqual({
      domain: ['whoami.example.com'],
      users: { allow: ['bob', '/^ops-/'], block: ['mallory'] },
      ip: { block: ['203.0.113.0/24'], bypass: ['10.9.0.0/16'] },
      path: { allow: ['^/public/'] },
      response: { headers: { 'X-Team': 'whoami' } },
    });
    expect(apps.grafana).toMatchObject({
      oauth: { whitelist: ['/@example\\.com$/'], groups: ['admins'] },
      ip: { allow: ['10.0.0.0/8', '192.168.0.0/16'] },
      path: { block: ['^/admin'] },
      response: { basicauth: { username: 'viewer', password_file: '/srv/portcullis/basicauth-grafana' } },
    });
    expect(secretFiles).toEqual([{ name: 'basicauth-grafana', text: 'viewer-password\n' }]);
    expect(apps.status).toEqual({
      domain: ['status.example.com'],
      users: { allow: ['bob'] },
      oauth: { whitelist: ['ops@example.com'] },
      path: { allow: ['^/api/health$'] },
    });
    expect(compileAccessRules(rules, () => 'x').ok).toBe(true);
  });

  it('decides the request table as tinyauth does, never wider', () => {
    const value = imported();
    const compiled = compileAccessRules(value.rules, () => 'x');
    const checks = parseCheckRequests(fixture('requests.txt'), 'requests.txt');
    if (!compiled.ok || !checks.ok) throw new Error('fixture');
    const results = compareDecisions(checks.value, value.decide, compiled.value, Date.now());
    expect(results.map((r) => `${r.source}/${r.portcullis}`)).toEqual([
      'allow/allow',
      'deny/deny',
      'deny/deny',
      'allow/allow',
      'allow/allow',
      'deny/deny',
      'allow/allow',
      'allow/allow',
      'deny/deny',
      'allow/allow',
      'login/login',
      'allow/allow',
      'deny/deny',
      'allow/allow',
    ]);
    expect(results.some((r) => r.wider)).toBe(false);
  });

  it('names the place of a bad label, a bad variable and a bad env line', () => {
    const bad = importTinyauth({
      env: { text: 'APP_URL=https://a.example.com\nTINYAUTH_APPS_X_USERS_ALOW=bob\nnot a line\n', file: 'e.env' },
      compose: null,
      config: null,
      outDir: '/o',
    });
    expect(bad).toEqual({ ok: false, error: ['e.env: line 3: expected NAME=value'] });
    const labels = importTinyauth({
      env: { text: 'TINYAUTH_APPS_X_USERS_ALOW=bob\n', file: 'e.env' },
      compose: { data: { services: { a: { labels: ['tinyauth.apps.a.users.alow=bob'] } } }, place },
      config: null,
      outDir: '/o',
    });
    expect(labels.ok ? [] : labels.error).toEqual([
      'e.env: line 1: TINYAUTH_APPS_X_USERS_ALOW: unknown app field "users.alow"',
      'services.a.labels.0: unknown field "users.alow"',
    ]);
    expect(parseEnvFile('export A=\'x y\'\n# c\nB="z"\n', 'f')).toEqual({
      ok: true,
      value: [
        ['A', 'x y', 1],
        ['B', 'z', 3],
      ],
    });
  });
});

describe('tinyauth ACL policy deny', () => {
  it('refuses hosts without an app and, in an app that lists nobody, every logged-in person (stricter, reported)', () => {
    const result = importTinyauth({
      env: { text: 'TINYAUTH_AUTH_ACLS_POLICY=deny\nTINYAUTH_APPS_WIKI_PATH_ALLOW=^/public/\nTINYAUTH_APPS_DOCS_USERS_ALLOW=bob\n', file: 'e.env' },
      compose: null,
      config: null,
      outDir: '/o',
    });
    if (!result.ok) throw new Error(result.error.join('\n'));
    expect(result.value.rules).toEqual({
      default_policy: 'deny',
      apps: { wiki: { path: { allow: ['^/public/'] }, users: { block: ['/^/'] } }, docs: { users: { allow: ['bob'] } } },
    });
    expect(result.value.stricter).toEqual([
      'app wiki: the ACL policy is deny and the app lists no users or whitelist: every logged-in person is refused there',
    ]);
    const compiled = compileAccessRules(result.value.rules, () => 'x');
    const checks = parseCheckRequests(
      [
        'GET https://wiki.example.com/x user=bob',
        'GET https://wiki.example.com/public/a',
        'GET https://docs.example.com/ user=bob',
        'GET https://docs.example.com/ user=eve',
        'GET https://else.example.com/ user=bob',
      ].join('\n'),
      'r',
    );
    if (!compiled.ok || !checks.ok) throw new Error('fixture');
    const results = compareDecisions(checks.value, result.value.decide, compiled.value, Date.now());
    expect(results.map((r) => `${r.source}/${r.portcullis}`)).toEqual(['deny/deny', 'allow/allow', 'allow/allow', 'deny/deny', 'deny/deny']);
  });
});
