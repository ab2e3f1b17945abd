import { evaluateAccess, hostKey, rulesForHost } from '../../../src/domain/access-evaluation';
import { compileAccessRules, type AccessRules } from '../../../src/domain/access-rules';
import type { OriginalRequest } from '../../../src/domain/forwarded-request';
import type { Identity } from '../../../src/domain/session';

function rules(doc: unknown, secrets: Record<string, string> = {}): AccessRules {
  const compiled = compileAccessRules(doc, (p) => secrets[p] ?? null);
  if (!compiled.ok) throw new Error(`rules invalid: ${compiled.error.join('; ')}`);
  return compiled.value;
}

/** The original request as the proxy named it: host as given (the domain normalises it), uri verbatim. */
function at(host: string, uri = '/'): OriginalRequest {
  return { proto: 'https', hostname: host, host, uri, url: `https://${host}${uri}`, method: null };
}

function person(username: string, more: Partial<Identity> = {}): Identity {
  return { username, name: username, email: `${username}@example.com`, groups: [], provider: 'username', oauth: false, totp: false, ...more };
}

const IP = '198.51.100.7';
const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);

const WIKI = {
  default_policy: 'allow_authenticated',
  apps: {
    wiki: {
      domain: ['wiki.example.com', '*.wiki.example.com'],
      users: { allow: ['alice', '/^ops-/'], block: ['ops-mallory'] },
      path: { allow: ['^/public/'] },
      ip: { block: ['203.0.113.0/24', '2001:db8:bad::/48'], bypass: ['10.9.0.0/16', 'fd00:9::/32'] },
      response: { headers: { 'X-Team': 'wiki' } },
    },
  },
};

describe('evaluateAccess', () => {
  const wiki = rules(WIKI);
  const decide = (host: string, uri: string, who: Identity | null, ip = IP) => evaluateAccess(wiki, at(host, uri), who, ip, NOW);

  it.each([
    ['a listed user', person('alice'), 'allow'],
    ['a user matching a /regex/ entry', person('ops-bob'), 'allow'],
    ['a listed user by e-mail, case-insensitively', person('x', { email: 'ALICE' }), 'allow'],
    ['a blocked user even when an allow regex matches', person('ops-mallory'), 'deny'],
    ['an unlisted user', person('carol'), 'deny'],
    ['nobody logged in', null, 'login_required'],
  ])('decides %s on a private path: %s', (_name, who, kind) => {
    expect(decide('wiki.example.com', '/private', who).kind).toBe(kind);
  });

  it('adds the configured headers on allow', () => {
    expect(decide('wiki.example.com', '/', person('alice'))).toEqual({ kind: 'allow', headers: { 'x-team': 'wiki' } });
  });

  it('names the application and the reason on deny', () => {
    expect(decide('wiki.example.com', '/', person('carol'))).toEqual({ kind: 'deny', reason: 'user_not_allowed', app: 'wiki' });
  });

  it('lets anyone reach a public path without login', () => {
    expect(decide('wiki.example.com', '/public/page', null).kind).toBe('allow');
  });

  it('blocks an address in ip.block before anything else, even on a public path and for listed users', () => {
    expect(decide('wiki.example.com', '/public/x', null, '203.0.113.9')).toEqual({ kind: 'deny', reason: 'ip_blocked', app: 'wiki', network: true });
    expect(decide('wiki.example.com', '/', person('alice'), '203.0.113.9').kind).toBe('deny');
    expect(decide('wiki.example.com', '/', person('alice'), '2001:db8:bad:1::5').kind).toBe('deny');
    expect(decide('wiki.example.com', '/', person('alice'), '::ffff:203.0.113.9').kind).toBe('deny');
  });

  it('lets an address in ip.bypass through without login (IPv4 and IPv6)', () => {
    expect(decide('wiki.example.com', '/private', null, '10.9.1.1').kind).toBe('allow');
    expect(decide('wiki.example.com', '/private', null, 'fd00:9::1').kind).toBe('allow');
    expect(decide('wiki.example.com', '/private', null, '10.10.1.1').kind).toBe('login_required');
  });

  it.each(['unknown', '', 'not-an-ip', '203.0.113.9, 10.9.0.1', '999.1.1.1'])(
    'denies a client address that does not parse (%j), never skipping the rules',
    (ip) => {
      expect(decide('wiki.example.com', '/public/x', null, ip)).toEqual({ kind: 'deny', reason: 'bad_client_ip', app: 'wiki', network: true });
    },
  );

  describe('path bypass corpus against path.allow ^/public/', () => {
    // nginx and caddy forward these as they are, and Koa or Flask serve /admin/ for them: no
    // reading may be chosen for the upstream, so the request is refused.
    it.each([
      '/admin/..;/public/x',
      '/admin/%2e%2e/public/x',
      '/admin/..%2fpublic/x',
      '/admin/..%5cpublic/x',
      '/public%2f..%2fadmin',
      '/public%2F..%2Fadmin',
      '/public/..%2fadmin',
      '/public/%2e%2e/admin',
      '/public/%2E%2E/admin',
      '/public/../admin',
      '/public/..;/admin',
      '/public;/../admin',
      '/public\\..\\admin',
      '/public%5c..%5cadmin',
      '/public//../admin',
      '/public/./../admin',
      '/x/../public/page',
      '/public/%252f..%252fadmin',
      '/admin#/public/',
    ])('refuses %s as an ambiguous path', (uri) => {
      expect(decide('wiki.example.com', uri, null)).toEqual({ kind: 'ambiguous_path', why: expect.any(String), app: 'wiki' });
      expect(decide('wiki.example.com', uri, person('alice')).kind).toBe('ambiguous_path');
    });

    it.each([
      ['/public/%00/x', 'no reading at all'],
      ['/public/%zz', 'no reading at all'],
      ['/PUBLIC/page', 'allow patterns are case-sensitive'],
      ['/admin?/public/', 'the query is not the path'],
      ['/admin%23/public/', 'an encoded # is a character of the name'],
      ['/public;x/page', 'an upstream that keeps the parameter serves /public;x/page, outside /public/'],
      ['/%70ublic/page', 'an upstream that does not decode serves /%70ublic/page'],
    ])('asks for login on %s (%s)', (uri) => {
      expect(decide('wiki.example.com', uri, null).kind).toBe('login_required');
    });

    it.each([
      ['/public/page', 'plain'],
      ['/public//page', 'duplicate slashes, merged or not'],
      ['/public/page?x=/admin', 'a query is not part of the path'],
      ['/public/page;x', 'a parameter within the public tree'],
      ['/public/p%61ge', 'encoded letters within the public tree'],
    ])('keeps %s public (%s): every reading is public', (uri) => {
      expect(decide('wiki.example.com', uri, null).kind).toBe('allow');
    });
  });

  describe('path bypass corpus against path.block ^/admin (the rest public)', () => {
    const open = rules({ apps: { docs: { path: { block: ['^/admin(/|$)'] } } } });
    const ask = (uri: string) => evaluateAccess(open, at('docs.example.com', uri), null, IP, NOW).kind;

    it.each([
      '/admin',
      '/admin/',
      '/admin/x',
      '/ADMIN/x',
      '/Admin',
      '/%61dmin',
      '//admin',
      '/admin;/x',
      '/admin;jsessionid=1',
      '/admin%3b/x',
      '/admin?x=1',
      '/admin%00.html',
      '/;x/admin',
    ])('asks for login on %s', (uri) => {
      expect(ask(uri)).toBe('login_required');
    });

    it.each([
      '/./admin',
      '/x/../admin',
      '/x/..%2fadmin',
      '/x/%2e%2e/admin',
      '/x%2f..%2fadmin',
      '/admin\\x',
      '/admin%5cx',
      '/admin#frag',
      '/public/%00/../admin',
      '/x/%zz/../admin',
    ])('refuses %s as an ambiguous path', (uri) => {
      expect(ask(uri)).toBe('ambiguous_path');
    });

    it.each(['/', '/docs/page', '/administrator-guide', '/x/admin', '/x//admin'])('keeps %s public', (uri) => {
      expect(ask(uri)).toBe('allow');
    });
  });

  describe('ambiguous paths where the path decides nothing', () => {
    const noPaths = rules({ apps: { app: { users: { allow: ['alice'] }, ip: { bypass: ['10.9.0.0/16'] } } } });
    const ask = (uri: string, who: Identity | null, ip = IP) => evaluateAccess(noPaths, at('app.example.com', uri), who, ip, NOW).kind;

    it('decides as for any other path when the application has no path rules', () => {
      expect(ask('/admin/..;/x', person('alice'))).toBe('allow');
      expect(ask('/admin/..;/x', person('carol'))).toBe('deny');
      expect(ask('/admin/..;/x', null)).toBe('login_required');
    });

    it('lets a bypass address through before the path is looked at', () => {
      const withPaths = rules({ apps: { app: { path: { allow: ['^/public/'] }, ip: { bypass: ['10.9.0.0/16'] } } } });
      expect(evaluateAccess(withPaths, at('app.example.com', '/admin/..;/x'), null, '10.9.0.7', NOW).kind).toBe('allow');
    });
  });

  it('matches the query only for a rule that asks for it', () => {
    const r = rules({ apps: { feed: { path: { allow: [{ regex: '^/feed\\?token=', query: true }, '^/static/$'] } } } });
    const ask = (uri: string) => evaluateAccess(r, at('feed.example.com', uri), null, IP, NOW).kind;
    expect(ask('/feed?token=abc')).toBe('allow');
    expect(ask('/feed')).toBe('login_required');
    expect(ask('/feed/../admin?token=abc')).toBe('ambiguous_path');
    expect(ask('/feed;x?token=abc')).toBe('login_required');
    expect(ask('/static/?x=1')).toBe('allow');
  });

  describe('hosts', () => {
    it.each([
      ['wiki.example.com', 'wiki'],
      ['WIKI.Example.COM', 'wiki'],
      ['wiki.example.com.', 'wiki'],
      ['wiki.example.com:8443', 'wiki'],
      ['a.wiki.example.com', 'wiki'],
      ['a.b.wiki.example.com', 'wiki'],
      ['wiki.example.com.evil.com', null],
      ['evilwiki.example.com', null],
      ['wiki.example.co', null],
      ['example.com', null],
    ])('finds the rules of %s: %s', (host, app) => {
      expect(rulesForHost(wiki, host).name).toBe(app);
    });

    it('matches the first host label for an application without domain, and an exact domain wins over it', () => {
      const r = rules({ apps: { grafana: {}, other: { domain: 'grafana.special.com' } } });
      expect(rulesForHost(r, 'grafana.example.com').name).toBe('grafana');
      expect(rulesForHost(r, 'GRAFANA.lan').name).toBe('grafana');
      expect(rulesForHost(r, 'grafana.special.com').name).toBe('other');
      expect(rulesForHost(r, 'grafanax.example.com').name).toBeNull();
    });

    it('never matches an IP-literal host by its first label', () => {
      const r = rules({ apps: { '10': {}, '192': { domain: '192.0.2.1' } } });
      expect(rulesForHost(r, '10.0.0.5').name).toBeNull();
      expect(rulesForHost(r, '192.0.2.1').name).toBe('192');
    });

    it('prefers the longest *.suffix', () => {
      const r = rules({ apps: { outer: { domain: '*.example.com' }, inner: { domain: '*.wiki.example.com' } } });
      expect(rulesForHost(r, 'a.wiki.example.com').name).toBe('inner');
      expect(rulesForHost(r, 'wiki.example.com').name).toBe('outer');
    });

    it('normalises hosts: lower case, no port, no trailing dots', () => {
      expect(hostKey('Wiki.Example.com.:443')).toBe('wiki.example.com');
      expect(hostKey('wiki.example.com..')).toBe('wiki.example.com');
      expect(hostKey('[::1]:8080')).toBe('[::1]');
      const plain = 'wiki.example.com';
      expect(hostKey(plain)).toBe(plain);
    });
  });

  describe('default section and default_policy', () => {
    it('lets any logged-in person through hosts without an application under allow_authenticated', () => {
      expect(evaluateAccess(wiki, at('other.example.com'), person('carol'), IP, NOW).kind).toBe('allow');
      expect(evaluateAccess(wiki, at('other.example.com'), null, IP, NOW).kind).toBe('login_required');
    });

    it('refuses hosts without an application under deny, anonymous or not', () => {
      const r = rules({ default_policy: 'deny', apps: { wiki: {} } });
      expect(evaluateAccess(r, at('other.example.com'), person('alice'), IP, NOW)).toEqual({ kind: 'deny', reason: 'default_deny' });
      expect(evaluateAccess(r, at('other.example.com'), null, IP, NOW).kind).toBe('deny');
      expect(evaluateAccess(r, null, person('alice'), IP, NOW).kind).toBe('deny');
      expect(evaluateAccess(r, at('wiki.example.com'), person('alice'), IP, NOW).kind).toBe('allow');
    });

    it('applies the default section to hosts without an application', () => {
      const r = rules({ default: { users: { allow: ['admin'] } }, apps: { wiki: {} } });
      expect(evaluateAccess(r, at('other.example.com'), person('alice'), IP, NOW).kind).toBe('deny');
      expect(evaluateAccess(r, at('other.example.com'), person('admin'), IP, NOW).kind).toBe('allow');
      expect(evaluateAccess(r, at('wiki.example.com'), person('alice'), IP, NOW).kind).toBe('allow');
    });
  });

  describe('people', () => {
    const r = rules({
      apps: {
        ops: { oauth: { whitelist: ['/@corp\\.com$/'], groups: ['admins', 'ops'] } },
        mixed: { users: { allow: ['alice'] }, oauth: { whitelist: ['bob@gmail.com'] } },
        secure: { require_totp: true },
        strong: { require_second_factor: true },
        local: { users: { allow: ['alice'] } },
      },
    });
    const ask = (app: string, who: Identity) => evaluateAccess(r, at(`${app}.example.com`), who, IP, NOW);

    it.each([
      ['an OAuth person on the whitelist in a required group', 'ops', person('x', { oauth: true, email: 'x@corp.com', groups: ['ops'] }), 'allow'],
      ['an OAuth person on the whitelist in no required group', 'ops', person('x', { oauth: true, email: 'x@corp.com', groups: ['dev'] }), 'group_missing'],
      ['an OAuth person off the whitelist', 'ops', person('x', { oauth: true, email: 'x@gmail.com', groups: ['ops'] }), 'user_not_allowed'],
      ['a local account when only an OAuth whitelist exists', 'ops', person('x', { email: 'x@corp.com', groups: ['ops'] }), 'user_not_allowed'],
      ['a local account on users.allow', 'mixed', person('alice'), 'allow'],
      ['an OAuth person on the whitelist', 'mixed', person('bob', { oauth: true, email: 'bob@gmail.com' }), 'allow'],
      ['a local account named like a whitelisted OAuth address', 'mixed', person('bob', { email: 'bob@gmail.com' }), 'user_not_allowed'],
      ['an OAuth person named like a listed local account', 'local', person('alice', { oauth: true, email: 'alice@evil.com' }), 'user_not_allowed'],
      ['an OAuth person when only users.allow exists', 'local', person('x', { oauth: true, email: 'alice' }), 'user_not_allowed'],
      ['a session that passed TOTP', 'secure', person('alice', { totp: true }), 'allow'],
      ['a session without TOTP', 'secure', person('alice'), 'totp_required'],
      ['a session with a second factor (TOTP or a passkey) under require_second_factor', 'strong', person('alice', { totp: true }), 'allow'],
      ['a session without a second factor under require_second_factor', 'strong', person('alice'), 'totp_required'],
    ])('decides %s', (_name, app, who, outcome) => {
      const d = ask(app, who);
      expect(d.kind === 'deny' ? d.reason : d.kind).toBe(outcome);
    });
  });

  it('keeps the order ip.block → ip.bypass → ip.allow → path → login → people', () => {
    const r = rules({
      apps: {
        app: {
          ip: { block: ['10.0.0.1'], bypass: ['10.0.0.0/24'], allow: ['10.0.1.0/24'] },
          path: { allow: ['^/open'] },
          users: { allow: ['alice'] },
        },
      },
    });
    const ask = (uri: string, who: Identity | null, ip: string) => {
      const d = evaluateAccess(r, at('app.example.com', uri), who, ip, NOW);
      return d.kind === 'deny' ? d.reason : d.kind;
    };
    expect(ask('/open', person('alice'), '10.0.0.1')).toBe('ip_blocked');
    expect(ask('/closed', null, '10.0.0.2')).toBe('allow');
    expect(ask('/open', null, '10.0.2.1')).toBe('ip_not_allowed');
    expect(ask('/open', null, '10.0.1.1')).toBe('allow');
    expect(ask('/closed', null, '10.0.1.1')).toBe('login_required');
    expect(ask('/closed', person('carol'), '10.0.1.1')).toBe('user_not_allowed');
    expect(ask('/closed', person('alice'), '10.0.1.1')).toBe('allow');
  });

  it('injects Authorization: Basic for the upstream from the password file', () => {
    const r = rules({ apps: { svc: { response: { basicauth: { username: 'svc', password_file: '/s/pw' } } } } }, { '/s/pw': 'pässword\n' });
    const d = evaluateAccess(r, at('svc.example.com'), person('alice'), IP, NOW);
    expect(d).toEqual({ kind: 'allow', headers: { authorization: `Basic ${Buffer.from('svc:pässword').toString('base64')}` } });
  });

  it('returns the same decision objects every time (nothing is built per request)', () => {
    const a = evaluateAccess(wiki, at('wiki.example.com', '/x'), person('alice'), IP, NOW);
    const b = evaluateAccess(wiki, at('wiki.example.com', '/y'), person('alice'), IP, NOW);
    expect(a).toBe(b);
    expect(evaluateAccess(wiki, at('wiki.example.com'), person('carol'), IP, NOW)).toBe(evaluateAccess(wiki, at('wiki.example.com'), person('dave'), IP, NOW));
  });

  it('reports every step to a trace, for explain', () => {
    const steps: string[] = [];
    evaluateAccess(wiki, at('wiki.example.com', '/x'), person('carol'), IP, NOW, (step) => steps.push(step));
    expect(steps).toEqual(['application', 'users.allow']);
  });
});

describe('evaluateAccess with an access token (issue 32)', () => {
  const doc = {
    default_policy: 'allow_authenticated',
    apps: {
      wiki: { domain: ['wiki.example.com'] },
      ci: { domain: ['ci.example.com'], users: { allow: ['alice'] } },
      vault: { domain: ['vault.example.com'], tokens: 'deny' },
      admin: { domain: ['admin.example.com'], require_second_factor: true },
      deploy: { domain: ['deploy.example.com'], require_second_factor: true, tokens: 'allow' },
    },
  };
  const compiled = rules(doc);
  const token = (apps: readonly string[] | null, who = 'alice'): Identity => person(who, { provider: 'token', token: { id: 't1', apps } });
  const decide = (host: string, who: Identity) => evaluateAccess(compiled, at(host), who, IP, NOW);

  it('passes an unscoped token wherever its owner may go', () => {
    expect(decide('wiki.example.com', token(null)).kind).toBe('allow');
    expect(decide('ci.example.com', token(null)).kind).toBe('allow');
    expect(decide('other.example.com', token(null)).kind).toBe('allow');
  });

  it('passes a scoped token only at the applications it names; a host of no named app is outside every scope', () => {
    expect(decide('ci.example.com', token(['ci'])).kind).toBe('allow');
    expect(decide('wiki.example.com', token(['ci']))).toMatchObject({ kind: 'deny', reason: 'token_scope', app: 'wiki' });
    expect(decide('other.example.com', token(['ci']))).toMatchObject({ kind: 'deny', reason: 'token_scope' });
  });

  it("keeps the owner's own rules: a scope never widens them", () => {
    expect(decide('ci.example.com', token(['ci'], 'bob'))).toMatchObject({ kind: 'deny', reason: 'user_not_allowed' });
  });

  it('is refused by tokens: deny, and where a second factor is required unless tokens: allow', () => {
    expect(decide('vault.example.com', token(null))).toMatchObject({ kind: 'deny', reason: 'tokens_denied' });
    expect(decide('admin.example.com', token(null))).toMatchObject({ kind: 'deny', reason: 'totp_required' });
    expect(decide('deploy.example.com', token(null)).kind).toBe('allow');
    // tokens: allow is about tokens: a password session still owes its second factor there.
    expect(decide('deploy.example.com', person('alice'))).toMatchObject({ kind: 'deny', reason: 'totp_required' });
  });

  it('refuses a tokens value other than allow or deny, naming the place', () => {
    const bad = compileAccessRules({ apps: { wiki: { tokens: 'yes' } } }, () => null);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toEqual([expect.stringContaining('apps.wiki.tokens')]);
  });
});
