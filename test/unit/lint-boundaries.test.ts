import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { APPLICATION_RULES, CONFIG_RULES, DOMAIN_RULES, type LayerRules } from '../support/import-rules';

const ROOT = resolve(__dirname, '../..');
// eslint's exports map hides its bin script from require.resolve; node_modules is where npm put it.
const ESLINT = join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');

interface LintMessage {
  readonly line: number;
  readonly ruleId: string | null;
}

/** Lints `source` as if it were the file `file` (relative to the root), through the repository's eslint.config.mjs. */
function lint(file: string, source: string): LintMessage[] {
  let out: string;
  try {
    out = execFileSync(process.execPath, [ESLINT, '--format', 'json', '--stdin', '--stdin-filename', join(ROOT, file)], {
      cwd: ROOT,
      input: source,
      encoding: 'utf8',
    });
  } catch (e) {
    // ESLint exits 1 when it found problems; its report is still on stdout.
    out = (e as { stdout: string }).stdout;
  }
  const [result] = JSON.parse(out) as [{ messages: LintMessage[] }];
  return result.messages;
}

/** One import line per forbidden package (a scope pattern stands for a package in that scope, with a subpath for good measure). */
const plantedImports = (rules: LayerRules): string[] =>
  rules.packages
    .flatMap((p) => (p.endsWith('/*') ? [`${p.slice(0, -1)}some-package`] : [p, `${p}/some/subpath`]))
    .map((name, i) => `import * as m${i} from '${name}';`);

const flaggedLines = (messages: LintMessage[]): number[] => messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.line);

// ESLint starts in its own process: a few seconds on a busy machine.
jest.setTimeout(60_000);

describe('the ESLint import boundary mirrors the architecture test', () => {
  it('flags in src/application every package and outer directory the architecture test forbids there', () => {
    const lines = [
      ...plantedImports(APPLICATION_RULES),
      "import { x } from '../../adapters/http/app';",
      "import { y } from '../../composition/tokens';",
      "import type { Config } from '../../config/load';",
    ];
    expect(flaggedLines(lint('src/application/password/planted.ts', lines.join('\n')))).toEqual(lines.map((_, i) => i + 1));
  });

  it('flags in src/domain every package, Node I/O module and layer the architecture test forbids there', () => {
    const lines = [
      ...plantedImports(DOMAIN_RULES),
      "import { x } from '../adapters/users/static-user-store';",
      "import type { Clock } from '../application/ports/clock';",
      "import type { Config } from '../config/load';",
    ];
    expect(flaggedLines(lint('src/domain/planted.ts', lines.join('\n')))).toEqual(lines.map((_, i) => i + 1));
  });

  it('flags in src/config every package and layer the architecture test forbids there, and lets it import the domain, Node and yaml', () => {
    const lines = [
      ...plantedImports(CONFIG_RULES),
      "import { x } from '../adapters/http/client-address';",
      "import type { Clock } from '../application/ports/clock';",
      "import { optionalModules } from '../composition/optional-modules';",
    ];
    expect(flaggedLines(lint('src/config/planted.ts', lines.join('\n')))).toEqual(lines.map((_, i) => i + 1));
    const allowed = [
      "import { parseUsersList } from '../domain/users-list';",
      "import type { EnvReader } from './env';",
      "import { readFileSync } from 'node:fs';",
      "import type { Document } from 'yaml';",
    ].join('\n');
    expect(flaggedLines(lint('src/config/planted.ts', allowed))).toEqual([]);
  });

  it('lets the application import its ports, the domain and Node built-ins, and packages that merely share a prefix', () => {
    const source = [
      "import type { Clock } from '../ports/clock';",
      "import { ok } from '../../domain/result';",
      "import { randomBytes } from 'node:crypto';",
      "import a from 'koa-compose-like';",
      "import b from 'pinot';",
    ].join('\n');
    expect(flaggedLines(lint('src/application/password/planted.ts', source))).toEqual([]);
  });
});
