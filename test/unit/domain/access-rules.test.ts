import { compileAccessRules } from '../../../src/domain/access-rules';

const noSecrets = (): string | null => null;

function problemsOf(doc: unknown, secrets: Record<string, string> = {}): string[] {
  const r = compileAccessRules(doc, (p) => secrets[p] ?? null);
  return r.ok ? [] : r.error;
}

describe('compileAccessRules', () => {
  it('accepts the shape of the issue', () => {
    const r = compileAccessRules(
      {
        default_policy: 'allow_authenticated',
        apps: {
          wiki: {
            domain: ['wiki.example.com', '*.wiki.example.com'],
            users: { allow: ['alice', '/^ops-/'], block: [] },
            oauth: { whitelist: [], groups: ['admins'] },
            path: { allow: ['^/public/'], block: [] },
            ip: { allow: [], block: ['203.0.113.0/24'], bypass: ['10.9.0.0/16'] },
            require_totp: false,
            response: { headers: { 'X-Team': 'wiki' }, basicauth: { username: 'svc', password_file: '/run/secrets/wiki' } },
          },
        },
      },
      (p) => (p === '/run/secrets/wiki' ? 's3cret\n' : null),
    );
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value.apps.map((a) => a.name)).toEqual(['wiki']);
  });

  it('lists every problem of a document at once, each with its place', () => {
    const problems = problemsOf({
      default_policy: 'maybe',
      colour: 'blue',
      apps: {
        wiki: {
          domain: ['wiki.example.com', 'bad host!'],
          uesrs: { allow: ['alice'] },
          users: { allow: ['/(/'], block: 'x', deny: [] },
          path: { allow: ['[', ''], block: [{ query: true }] },
          ip: { block: ['300.1.1.1/8'], bypass: ['10.0.0.0/40'] },
          require_totp: 'yes',
          response: { headers: { 'Remote-User': 'root', Authorization: 'x', 'Bad Name': 'x', 'X-Ok': 'line\nbreak' }, basicauth: { username: 'a:b' } },
        },
        other: { domain: 'WIKI.example.com' },
        'bad name': {},
      },
    });
    const expected = [
      'default_policy: must be allow_authenticated or deny',
      'unknown key "colour"',
      'apps.wiki: unknown key "uesrs"',
      'apps.wiki.users: unknown key "deny"',
      'apps.wiki.require_totp: must be true or false',
      'apps.wiki.domain: "bad host!"',
      'apps.wiki.response.headers.Remote-User',
      'apps.wiki.response.headers.Authorization: Authorization is set by the gateway (use response.basicauth)',
      'apps.wiki.response.headers.Bad Name: is not a valid header name',
      'apps.wiki.response.headers.X-Ok: must be a single line',
      'apps.wiki.response.basicauth.username',
      'apps.wiki.response.basicauth.password_file: is required',
      'apps.wiki.users.allow[0]: "/(/" is not a valid regular expression',
      'apps.wiki.path.allow[0]: "[" is not a valid regular expression',
      'apps.wiki.path.allow[1]: must not be empty',
      'apps.wiki.path.block[0]: needs "regex"',
      'apps.wiki.ip.block: "300.1.1.1/8"',
      'apps.wiki.ip.bypass: "10.0.0.0/40"',
      'apps.other.domain: "wiki.example.com" is claimed by another application',
      'apps.bad name: an application name',
    ];
    for (const e of expected) expect(problems.some((p) => p.startsWith(e))).toBe(true);
    expect(problems).toHaveLength(expected.length);
  });

  it.each([
    ['an empty document', null],
    ['a list', ['a']],
    ['a string', 'apps'],
    ['a number', 42],
    ['apps as a list', { apps: ['wiki'] }],
    ['an app as a string', { apps: { wiki: 'yes' } }],
    ['users as a list', { apps: { wiki: { users: ['alice'] } } }],
    ['ip entries as mappings', { apps: { wiki: { ip: { block: [{ cidr: '1.2.3.4' }] } } } }],
    ['a domain list that is empty', { apps: { wiki: { domain: [] } } }],
    ['a default section with default_policy deny', { default_policy: 'deny', default: {} }],
    ['a regex with an unsupported flag', { apps: { wiki: { users: { allow: ['/x/g'] } } } }],
    ['two applications on one *.suffix', { apps: { a: { domain: '*.x.com' }, b: { domain: '*.X.com.' } } }],
    ['two applications on one first label', { apps: { wiki: {}, WIKI: {} } }],
  ])('refuses %s', (_name, doc) => {
    expect(compileAccessRules(doc, noSecrets).ok).toBe(false);
  });

  it('names an unreadable or empty password file without ever showing a password', () => {
    const doc = (file: string) => ({ apps: { svc: { response: { basicauth: { username: 'svc', password_file: file } } } } });
    expect(problemsOf(doc('/missing'))).toEqual(['apps.svc.response.basicauth.password_file: cannot read /missing']);
    expect(problemsOf(doc('/empty'), { '/empty': '\n' })).toEqual(['apps.svc.response.basicauth.password_file: /empty is empty']);
    const withBadUser = problemsOf({ apps: { svc: { response: { basicauth: { username: 'a:b', password_file: '/pw' } } } } }, { '/pw': 'hunter2' });
    expect(withBadUser.join(' ')).not.toContain('hunter2');
  });

  it('keeps a header named __proto__ an ordinary header', () => {
    const r = compileAccessRules({ apps: { a: { response: { headers: { __proto__x: 'y' } } } } }, noSecrets);
    expect(r.ok).toBe(true);
  });
});
