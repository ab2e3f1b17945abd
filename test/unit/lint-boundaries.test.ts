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

const flagged = (messages: LintMessage[], rule: string): number[] => messages.filter((m) => m.ruleId === rule).map((m) => m.line);

describe('the ESLint import boundary keeps the entry points in src/cli to themselves', () => {
  it('flags an import of src/cli in adapters and composition, and lets src/main.ts and src/cli import it', () => {
    const adapterImport = "import type { CliIo } from '../../cli/cli-io';";
    expect(flaggedLines(lint('src/adapters/http/planted.ts', adapterImport))).toEqual([1]);
    expect(flaggedLines(lint('src/composition/planted.ts', "import { main } from '../cli/serve';"))).toEqual([1]);
    expect(flaggedLines(lint('src/application/password/planted.ts', "import { explain } from '../../cli/explain';"))).toEqual([1]);
    expect(flaggedLines(lint('src/main.ts', "import { runPortcullis } from './cli/run-portcullis';"))).toEqual([]);
    expect(flaggedLines(lint('src/cli/planted.ts', "import type { CliIo } from './cli-io';\nimport { createGateway } from '../composition/gateway';"))).toEqual(
      [],
    );
  });
});

describe('the ESLint size limits', () => {
  /** A function of `lines` statements, each on its own line. */
  const functionOf = (lines: number): string =>
    ['export function planted(): number {', '  let n = 0;', ...Array.from({ length: lines - 4 }, () => '  n += 1;'), '  return n;', '}'].join('\n');
  /** A class whose constructor takes `count` parameters. */
  const constructorOf = (count: number): string =>
    ['export class Planted {', `  constructor(${Array.from({ length: count }, (_, i) => `readonly p${i}: number`).join(', ')}) {}`, '}'].join('\n');

  it('flags a function of 101 lines and a constructor of 9 parameters in src/', () => {
    expect(flagged(lint('src/application/password/planted.ts', functionOf(101)), 'max-lines-per-function')).toEqual([1]);
    expect(flagged(lint('src/adapters/http/planted.ts', constructorOf(9)), 'max-params')).toEqual([2]);
  });

  it('lets a function of 100 lines and a constructor of 8 parameters pass', () => {
    expect(flagged(lint('src/application/password/planted.ts', functionOf(100)), 'max-lines-per-function')).toEqual([]);
    expect(flagged(lint('src/adapters/http/planted.ts', constructorOf(8)), 'max-params')).toEqual([]);
  });
});
