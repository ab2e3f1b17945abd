import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explain } from '../../../src/cli/explain';

describe('portcullis explain', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-explain-'));
    file = join(dir, 'access.yaml');
    writeFileSync(file, 'apps:\n  wiki:\n    users: { allow: [alice] }\n    path: { allow: ["^/public/"] }\n    ip: { block: ["203.0.113.0/24"] }\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (...argv: string[]) => {
    const lines: string[] = [];
    const code = explain(argv, { ACCESS_CONFIG: file }, (l) => lines.push(l));
    return { code, out: lines.join('\n') };
  };

  it('names the rule that refuses a person and exits 1', () => {
    const { code, out } = run('https://wiki.example.com/x', '--user', 'carol');
    expect(code).toBe(1);
    expect(out).toContain('users.allow: carol is on no allow list: deny');
    expect(out).toContain('decision:    deny (user_not_allowed)');
  });

  it.each(['/admin/..;/public/x', '/admin/%2e%2e/public/x', '/admin/..%2fpublic/x', '/admin/..%5cpublic/x'])(
    'shows that the gateway refuses the ambiguous path %s with 400, and why',
    (path) => {
      const { code, out } = run(`https://wiki.example.com${path}`, '--user', 'alice');
      expect(code).toBe(1);
      expect(out).toMatch(/path: +ambiguous \((a dot-segment|an encoded slash or backslash)\)/);
      expect(out).toMatch(/decision: +refused: 400 Ambiguous path \((a dot-segment|an encoded slash or backslash)\)/);
      expect(out).not.toContain('/public/x is public');
    },
  );

  it('shows every reading of a path and decides on the strictest', () => {
    const { code, out } = run('https://wiki.example.com/public;x/page');
    expect(code).toBe(1);
    expect(out).toContain('path:        /public;x/page, also read as /public/page');
    expect(out).toContain('path:        /public;x/page is not public: the strictest reading decides');
    expect(out).toContain('decision:    login_required');
    const both = run('https://wiki.example.com/public//page');
    expect(both.code).toBe(0);
    expect(both.out).toContain('path:        /public//page, /public/page are public: allow');
  });

  it('allows a listed person and exits 0', () => {
    expect(run('https://wiki.example.com/x', '--user=alice').code).toBe(0);
  });

  it('names the IP rule for a blocked address', () => {
    expect(run('https://wiki.example.com/public/x', '--ip', '203.0.113.4').out).toContain('ip.block:    203.0.113.4 is blocked: deny');
  });

  it('prints usage and exits 2 on bad arguments or a missing rules file', () => {
    expect(run().code).toBe(2);
    expect(run('https://x/', '--nope').code).toBe(2);
    expect(explain(['https://wiki.example.com/'], {}, () => undefined)).toBe(2);
    expect(run('not a url').code).toBe(2);
  });

  it("shows an access token's decision: its scope first, then its owner's rules (issue 32)", () => {
    const scoped = run('https://wiki.example.com/x', '--user', 'alice', '--token-apps', 'ci');
    expect(scoped.code).toBe(1);
    expect(scoped.out).toContain('person:      alice (access token for ci)');
    expect(scoped.out).toContain('token:       the token opens ci only: deny');
    expect(scoped.out).toContain('decision:    deny (token_scope)');
    const wiki = run('https://wiki.example.com/x', '--user', 'alice', '--token-apps', 'wiki,ci');
    expect(wiki.code).toBe(0);
    const any = run('https://wiki.example.com/x', '--user', 'carol', '--token');
    expect(any.out).toContain('person:      carol (access token, any application)');
    expect(any.out).toContain('decision:    deny (user_not_allowed)');
    expect(run('https://wiki.example.com/x', '--user', 'alice', '--token', '--totp').code).toBe(2);
  });
});

describe('portcullis explain with paths entries (issue 33)', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-explain-paths-'));
    file = join(dir, 'access.yaml');
    writeFileSync(
      file,
      'apps:\n  wiki:\n    paths:\n      - match: "^/admin"\n        methods: [POST]\n        require: { second_factor: true, max_age: 600 }\n' +
        '      - match: "^/vault"\n        require: { login: [passkey] }\n',
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (...argv: string[]) => {
    const lines: string[] = [];
    const code = explain(argv, { ACCESS_CONFIG: file }, (l) => lines.push(l));
    return { code, out: lines.join('\n') };
  };

  it('prints the entry that matched and the step-up it asks for', () => {
    const { code, out } = run('https://wiki.example.com/admin/x', '--method', 'POST', '--user', 'alice', '--totp', '--age', '700');
    expect(code).toBe(1);
    expect(out).toContain('/admin/x matches apps.wiki.paths[0] (^/admin, POST)');
    expect(out).toContain('decision:    step-up required: totp or passkey within 600 s');
    expect(out).toMatch(/person: +alice \(TOTP passed\) \(session: password 700 s ago, totp 700 s ago\)/);
  });

  it('a GET matches no POST entry, and a fresh second factor meets the requirement', () => {
    expect(run('https://wiki.example.com/admin/x', '--user', 'alice').out).toContain('/admin/x matches no entry');
    const fresh = run('https://wiki.example.com/admin/x', '--method', 'POST', '--user', 'alice', '--login', 'password,totp', '--age', '10');
    expect(fresh.code).toBe(0);
    expect(fresh.out).toContain('apps.wiki.paths[0]: require: met');
  });

  it('a passkey entry is not met by a TOTP login; a token, a JWT and Basic can never meet it', () => {
    expect(run('https://wiki.example.com/vault', '--user', 'alice', '--totp').out).toContain('step-up required: passkey');
    for (const credential of ['--token', '--jwt', '--basic']) {
      const { code, out } = run('https://wiki.example.com/vault', '--user', 'alice', credential);
      expect(code).toBe(1);
      expect(out).toContain('decision:    deny (step_up_impossible)');
    }
  });

  it('refuses flags that describe no credential', () => {
    expect(run('https://wiki.example.com/vault', '--user', 'alice', '--jwt', '--basic').code).toBe(2);
    expect(run('https://wiki.example.com/vault', '--user', 'alice', '--login', 'sms').out).toContain('--login takes password, totp, passkey, oauth');
    expect(run('https://wiki.example.com/vault', '--user', 'alice', '--age', '-3').code).toBe(2);
  });
});
