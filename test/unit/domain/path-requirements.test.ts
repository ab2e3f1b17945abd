import { evaluateAccess } from '../../../src/domain/access-evaluation';
import { compileAccessRules, type AccessRules } from '../../../src/domain/access-rules';
import type { OriginalRequest } from '../../../src/domain/forwarded-request';
import type { ProvenMethods } from '../../../src/domain/login-methods';
import type { Identity } from '../../../src/domain/session';

// Issue 33: an application's `paths` entries, tried in order, first match wins, only ever narrowing.
const NOW = Date.UTC(2026, 11, 3, 12, 0, 0);
const IP = '198.51.100.7';

function rules(doc: unknown): AccessRules {
  const compiled = compileAccessRules(doc, () => null);
  if (!compiled.ok) throw new Error(`rules invalid: ${compiled.error.join('; ')}`);
  return compiled.value;
}

function problems(doc: unknown): string[] {
  const compiled = compileAccessRules(doc, () => null);
  return compiled.ok ? [] : compiled.error;
}

function at(uri: string, method: string | null = 'GET'): OriginalRequest {
  return { proto: 'https', hostname: 'wiki.example.com', host: 'wiki.example.com', uri, url: `https://wiki.example.com${uri}`, method };
}

/** A session that proved `proven` (seconds ago per method). */
function session(username: string, proven: Partial<Record<keyof ProvenMethods, number>>, more: Partial<Identity> = {}): Identity {
  const p: Record<string, number> = {};
  for (const [m, ago] of Object.entries(proven)) p[m] = NOW - ago * 1000;
  return { username, name: username, email: '', groups: [], provider: 'username', oauth: false, totp: 'totp' in proven, proven: p, ...more };
}

const WIKI = rules({
  apps: {
    wiki: {
      domain: ['wiki.example.com'],
      users: { block: ['mallory'] },
      path: { allow: ['^/public/', '^/admin/help$'] },
      ip: { bypass: ['10.9.0.0/16'] },
      paths: [
        { match: '^/admin/audit', groups: ['auditors'] },
        { match: '^/admin', methods: ['POST', 'delete'], require: { second_factor: true, max_age: 600 } },
        { match: '^/admin', users: { allow: ['alice', 'bob'] } },
        { match: '^/vault', require: { login: ['passkey'] } },
        { match: '^/reports', require: { login: ['token', 'password'] } },
        { match: 'export=csv', query: true, require: { max_age: 60 } },
      ],
    },
  },
});

const decide = (uri: string, who: Identity | null, method: string | null = 'GET', ip = IP) => evaluateAccess(WIKI, at(uri, method), who, ip, NOW);

describe('paths entries: order, methods, users and groups', () => {
  it('the first matching entry decides, and later entries for the same path are not consulted', () => {
    const auditor = session('carol', { password: 5 }, { groups: ['auditors'] });
    // carol is not in users.allow of the third entry, but the first entry matched /admin/audit.
    expect(decide('/admin/audit/log', auditor).kind).toBe('allow');
    expect(decide('/admin/settings', auditor)).toMatchObject({ kind: 'deny', reason: 'user_not_allowed', app: 'wiki' });
    expect(decide('/admin/audit/log', session('alice', { password: 5 }))).toMatchObject({ kind: 'deny', reason: 'group_missing' });
  });

  it('an entry with methods applies only to those methods; an unnamed method counts as any (the entry applies)', () => {
    const alice = session('alice', { password: 5 });
    expect(decide('/admin/users', alice, 'GET').kind).toBe('allow');
    expect(decide('/admin/users', alice, 'POST')).toEqual({ kind: 'step_up_required', methods: ['totp', 'passkey'], maxAge: 600, app: 'wiki' });
    expect(decide('/admin/users', alice, 'DELETE').kind).toBe('step_up_required');
    expect(decide('/admin/users', alice, null).kind).toBe('step_up_required');
  });

  it('matches paths case-insensitively: /ADMIN is /admin to the entry', () => {
    expect(decide('/ADMIN/users', session('eve', { password: 5 }))).toMatchObject({ kind: 'deny', reason: 'user_not_allowed' });
  });

  it('an OAuth identity never matches an entry users.allow (a provider name is not the local account)', () => {
    expect(decide('/admin/x', session('alice', {}, { oauth: true, provider: 'github', proven: { oauth: NOW } }))).toMatchObject({
      kind: 'deny',
      reason: 'user_not_allowed',
    });
  });

  it('a query entry reads path?query', () => {
    expect(decide('/wiki/page?export=csv', session('alice', { password: 120 }))).toMatchObject({ kind: 'step_up_required', maxAge: 60 });
    expect(decide('/wiki/page?export=pdf', session('alice', { password: 120 })).kind).toBe('allow');
  });
});

describe('paths entries only narrow', () => {
  it('the application refuses first: a blocked person is refused before any entry is asked', () => {
    expect(decide('/admin/x', session('mallory', { password: 5, totp: 5 }))).toMatchObject({ kind: 'deny', reason: 'user_blocked' });
  });

  it('a public path that an entry matches is no longer public; other public paths stay so', () => {
    expect(decide('/admin/help', null).kind).toBe('login_required');
    expect(decide('/public/logo.png', null).kind).toBe('allow');
  });

  it('ip.bypass does not pass a path an entry matches', () => {
    expect(decide('/admin/x', null, 'GET', '10.9.1.2').kind).toBe('login_required');
    expect(decide('/wiki/page', null, 'GET', '10.9.1.2').kind).toBe('allow');
  });

  it('paths that match no entry are decided by the application alone', () => {
    expect(decide('/wiki/page', session('eve', { password: 86_400 })).kind).toBe('allow');
  });
});

describe('requirements: the method is checked, not only the time', () => {
  it('a passkey requirement is never met by a fresh TOTP code or password', () => {
    expect(decide('/vault', session('alice', { password: 0, totp: 0 }))).toEqual({ kind: 'step_up_required', methods: ['passkey'], maxAge: null, app: 'wiki' });
    expect(decide('/vault', session('alice', { passkey: 86_400 })).kind).toBe('allow');
  });

  it('max_age boundaries: exactly max_age old passes, one second more asks again', () => {
    const method = 'POST';
    expect(decide('/admin/x', session('alice', { password: 1000, totp: 600 }), method).kind).toBe('allow');
    expect(decide('/admin/x', session('alice', { password: 1000, totp: 601 }), method).kind).toBe('step_up_required');
    expect(decide('/admin/x', session('alice', { password: 0, passkey: 599 }), method).kind).toBe('allow');
  });

  it('tokens, JWTs and HTTP Basic never meet a step-up requirement; a token meets one that names token', () => {
    const token = { ...session('alice', {}), proven: undefined, token: { id: 't1', apps: null } };
    const jwt = { ...session('svc', {}), proven: undefined, provider: 'jwt' };
    const basic = { ...session('alice', {}), proven: undefined, provider: 'basic' };
    for (const who of [token, jwt, basic]) expect(decide('/vault', who)).toMatchObject({ kind: 'deny', reason: 'step_up_impossible' });
    expect(decide('/reports', token).kind).toBe('allow');
    expect(decide('/reports', jwt)).toMatchObject({ kind: 'deny', reason: 'step_up_impossible' });
    expect(decide('/reports', basic)).toMatchObject({ kind: 'deny', reason: 'step_up_impossible' });
  });

  it('a session that proved nothing (sealed by an older version) is asked to step up', () => {
    expect(decide('/vault', session('alice', {})).kind).toBe('step_up_required');
  });
});

describe('ambiguous paths', () => {
  it('a path with readings that differ is refused when the application has paths entries', () => {
    expect(decide('/x/..%2Fadmin', session('alice', { password: 1 }))).toMatchObject({ kind: 'ambiguous_path', app: 'wiki' });
  });

  it('every reading of an encoded path is judged: /%61dmin is /admin', () => {
    expect(decide('/%61dmin/x', session('eve', { password: 1 }))).toMatchObject({ kind: 'deny', reason: 'user_not_allowed' });
  });
});

describe('paths in the rules file: every problem with its place', () => {
  it('reports each invalid entry field', () => {
    const found = problems({
      apps: {
        wiki: {
          paths: [
            { match: '(' },
            { require: { second_factor: 'yes', login: ['sms'], max_age: -1 } },
            { match: '^/a', methods: ['GET POST'], color: 'red', require: { second_factor: true } },
            { match: '^/b' },
            { match: '^/c', require: { second_factor: true, login: ['password'] } },
            { match: '^/d', require: {} },
          ],
        },
      },
    });
    expect(found).toEqual(
      expect.arrayContaining([
        'apps.wiki.paths[0].match: "(" is not a valid regular expression',
        'apps.wiki.paths[1].match: is required: a regular expression on the path',
        'apps.wiki.paths[1].require.second_factor: must be true or false',
        'apps.wiki.paths[1].require.login[0]: "sms" is not a login method (password, totp, passkey, oauth, token, jwt)',
        expect.stringMatching(/^apps\.wiki\.paths\[1\]\.require\.max_age: must be a whole number/),
        'apps.wiki.paths[2]: unknown key "color" (expected match, query, methods, users, groups, require)',
        'apps.wiki.paths[2].methods: "GET POST" is not an HTTP method',
        'apps.wiki.paths[3]: narrows nothing: give it require, users or groups',
        expect.stringMatching(/^apps\.wiki\.paths\[4\]\.require\.login: second_factor: true needs totp or passkey/),
        expect.stringMatching(/^apps\.wiki\.paths\[5\]\.require: must name at least one/),
      ]),
    );
  });

  it('paths must be a list', () => {
    expect(problems({ apps: { wiki: { paths: { match: '^/a' } } } })).toEqual(['apps.wiki.paths: must be a list of entries (- match: "^/admin" …)']);
  });
});
