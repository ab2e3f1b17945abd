import { optionalModules } from '../../../src/composition/optional-modules';
import { mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { InMemoryAccessRulesSource } from '../../../src/adapters/rules/in-memory-access-rules-source';
import { InvalidAccessRulesError, YamlFileAccessRulesSource } from '../../../src/adapters/rules/yaml-file-access-rules-source';
import { compileAccessRules } from '../../../src/domain/access-rules';
import { rulesForHost } from '../../../src/domain/access-evaluation';
import { waitFor } from '../../support/wait';
import { accessRulesSourceContract } from './access-rules-source.contract';

const noSecrets = (): string | null => null;

accessRulesSourceContract('InMemoryAccessRulesSource', async (initial) => {
  const first = compileAccessRules(initial, noSecrets);
  if (!first.ok) throw new Error('bad initial rules');
  const source = new InMemoryAccessRulesSource(first.value);
  return {
    source,
    async write(doc) {
      const r = compileAccessRules(doc, noSecrets);
      if (r.ok) source.replace(r.value);
      else source.refuse(r.error);
    },
    async writeBroken() {
      source.refuse(['apps: must be a mapping']);
    },
    async close() {
      source.close();
    },
  };
});

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'portcullis-rules-'));
}

accessRulesSourceContract('YamlFileAccessRulesSource', async (initial) => {
  const dir = tempDir();
  const file = join(dir, 'access.yaml');
  writeFileSync(file, stringify(initial));
  const source = new YamlFileAccessRulesSource(file, optionalModules.yaml(), { pollMs: 50, debounceMs: 20 });
  let writes = 0;
  return {
    source,
    async write(doc) {
      const before = source.version();
      // Alternate in-place writes and atomic replaces (what many editors and config tools do).
      writes += 1;
      if (writes % 2 === 0) {
        writeFileSync(join(dir, 'next.yaml'), stringify(doc));
        renameSync(join(dir, 'next.yaml'), file);
      } else writeFileSync(file, stringify(doc));
      await waitFor(() => source.version() > before, 'the rules file to reload');
    },
    async writeBroken() {
      writeFileSync(file, 'apps:\n  wiki: [unclosed\n');
      await waitFor(() => source.problems().length > 0, 'the broken rules file to be refused');
    },
    async close() {
      source.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('YamlFileAccessRulesSource', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const open = (text: string, name = 'access.yaml'): YamlFileAccessRulesSource => {
    writeFileSync(join(dir, name), text);
    return new YamlFileAccessRulesSource(join(dir, name), optionalModules.yaml(), { pollMs: 50, debounceMs: 20 });
  };
  const startupProblems = (text: string): readonly string[] => {
    try {
      open(text).close();
    } catch (e) {
      if (e instanceof InvalidAccessRulesError) return e.problems;
      throw e;
    }
    return [];
  };

  it('refuses to start on an invalid file, listing every problem with its line', () => {
    const problems = startupProblems('default_policy: maybe\napps:\n  wiki:\n    ip: { block: [nope] }\n    require_totp: 3\n');
    expect(problems).toEqual([
      'line 1: default_policy: must be allow_authenticated or deny',
      'line 5: apps.wiki.require_totp: must be true or false',
      'line 4: apps.wiki.ip.block: "nope" is not an IP address or CIDR',
    ]);
  });

  it.each([
    ['an empty file', ''],
    ['only a comment', '# nothing\n'],
    ['a tab for indentation', 'apps:\n\twiki: {}\n'],
    ['a duplicate key', 'apps:\n  wiki: {}\n  wiki: {}\n'],
    ['an unresolved alias', 'apps: *nope\n'],
    ['two documents', 'apps: {}\n---\napps: {}\n'],
    ['an unclosed flow list', 'apps: [\n'],
    ['binary junk', '\u0000\u0001\u00ff\u0007'],
    ['a scalar', 'just words'],
    [
      'a billion-laughs alias bomb',
      `a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\napps: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n`,
    ],
  ])('refuses junk YAML: %s', (_name, text) => {
    expect(startupProblems(text).length).toBeGreaterThan(0);
  });

  it('reads unquoted names in user, group, whitelist and domain lists as written, never as numbers or booleans', () => {
    const source = open(
      'apps:\n  wiki:\n    domain: [007.example.com, 0x10]\n    users:\n      block: [007, 0x10, 1e3, true, null, ~, 1_000, 1.50, 0o17]\n      allow: 042\n' +
        '    oauth:\n      whitelist: [1e3]\n      groups:\n        - 007\n        - false\n',
    );
    try {
      const wiki = rulesForHost(source.current(), '007.example.com');
      expect(wiki.name).toBe('wiki');
      expect([...wiki.usersBlock.literals]).toEqual(['007', '0x10', '1e3', 'true', 'null', '~', '1_000', '1.50', '0o17']);
      expect([...wiki.usersAllow.literals]).toEqual(['042']);
      expect([...wiki.oauthWhitelist.literals]).toEqual(['1e3']);
      expect([...wiki.groups]).toEqual(['007', 'false']);
      expect(rulesForHost(source.current(), '0x10').name).toBe('wiki');
    } finally {
      source.close();
    }
  });

  it('refuses an empty entry in a name list, naming its line', () => {
    const problems = startupProblems('apps:\n  wiki:\n    users:\n      block:\n        - mallory\n        -\n');
    expect(problems).toEqual(['line 6: apps.wiki.users.block[1]: must not be empty']);
  });

  it('names the line of each problem in a paths entry, and reads its names as written (issue 33)', () => {
    const problems = startupProblems(
      'apps:\n  wiki:\n    paths:\n      - match: "^/admin"\n        groups: [007]\n        require:\n          max_age: soon\n      - match: "("\n        users: { allow: [alice] }\n',
    );
    expect(problems).toEqual([
      'line 7: apps.wiki.paths[0].require.max_age: must be a whole number of seconds from 0 to 31622400',
      'line 8: apps.wiki.paths[1].match: "(" is not a valid regular expression',
    ]);
  });

  it('refuses a missing file at start-up', () => {
    expect(() => new YamlFileAccessRulesSource(join(dir, 'missing.yaml'), optionalModules.yaml())).toThrow(InvalidAccessRulesError);
  });

  it('keeps the last good rules when the file is deleted', async () => {
    const source = open('apps:\n  wiki: {}\n');
    try {
      unlinkSync(join(dir, 'access.yaml'));
      await waitFor(() => source.problems().length > 0, 'the missing file to be noticed');
      expect(rulesForHost(source.current(), 'wiki.example.com').name).toBe('wiki');
    } finally {
      source.close();
    }
  });

  it('reads the basicauth password file at load time and again at each reload', async () => {
    writeFileSync(join(dir, 'pw'), 'first\n');
    const text = `apps:\n  svc:\n    response:\n      basicauth: { username: svc, password_file: ${join(dir, 'pw')} }\n`;
    const source = open(text);
    try {
      const header = () => {
        const d = rulesForHost(source.current(), 'svc.example.com').allowed;
        return d.kind === 'allow' ? d.headers?.authorization : undefined;
      };
      expect(header()).toBe(`Basic ${Buffer.from('svc:first').toString('base64')}`);
      writeFileSync(join(dir, 'pw'), 'second');
      expect(source.reload()).toBe(true);
      expect(header()).toBe(`Basic ${Buffer.from('svc:second').toString('base64')}`);
    } finally {
      source.close();
    }
  });

  it('logs why a reload was refused, never the password', async () => {
    const lines: string[] = [];
    const logger = {
      debug: () => {},
      info: () => {},
      error: () => {},
      warn: (msg: string, f?: Record<string, unknown>) => lines.push(`${msg} ${JSON.stringify(f)}`),
    };
    writeFileSync(join(dir, 'pw'), 'hunter2-secret');
    writeFileSync(join(dir, 'access.yaml'), `apps:\n  svc:\n    response:\n      basicauth: { username: svc, password_file: ${join(dir, 'pw')} }\n`);
    const source = new YamlFileAccessRulesSource(join(dir, 'access.yaml'), optionalModules.yaml(), { logger, pollMs: 0, debounceMs: 20 });
    try {
      writeFileSync(
        join(dir, 'access.yaml'),
        `apps:\n  svc:\n    ip: { block: [bad] }\n    response:\n      basicauth: { username: svc, password_file: ${join(dir, 'pw')} }\n`,
      );
      expect(source.reload()).toBe(false);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('apps.svc.ip.block: \\"bad\\" is not an IP address or CIDR');
      expect(lines[0]).not.toContain('hunter2');
    } finally {
      source.close();
    }
  });
});
