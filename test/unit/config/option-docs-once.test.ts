import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { JWT_ISSUER_FIELDS, JWT_ISSUER_PREFIX } from '../../../src/config/jwt-issuers';
import { OAUTH_PROVIDER_FIELDS, OAUTH_PROVIDER_PREFIX } from '../../../src/config/oauth-providers';
import { OIDC_CLIENT_DOCS, OIDC_CLIENT_PREFIX } from '../../../src/config/oidc';
import { OPTION_NAMES, OPTION_TABLE } from '../../../src/config/options';

/**
 * Each option is documented once: exactly one row of the documentation's option tables (a table whose
 * first column is headed "variable") names it, and every name such a row gives is an option. The
 * generated tables of docs/configuration.md are that one row; a second table elsewhere that repeats an
 * option would drift from it, and an option no table names is a setting nobody can find.
 */

const ROOT = join(__dirname, '..', '..', '..');

/** Tables of settings that are not the gateway's options, and why. */
const OTHER_SETTINGS: Readonly<Record<string, string>> = {
  'docs/benchmark.md': "the benchmark's own settings (BENCH_*), read by bench/run.js",
};

interface OptionRow {
  readonly file: string;
  readonly line: number;
  /** Every option-like name in the row's first cell, in backticks (`OIDC_CLIENTS_<ID>_NAME` for a pattern). */
  readonly names: readonly string[];
}

/** The rows of every table headed `| variable | …` in a Markdown text (fenced code aside). */
export function optionRows(file: string, markdown: string): OptionRow[] {
  const rows: OptionRow[] = [];
  const lines = markdown.split('\n');
  let fence = false;
  let inTable = false;
  lines.forEach((line, i) => {
    if (/^\s*```/.test(line)) fence = !fence;
    if (fence || !line.trim().startsWith('|')) {
      inTable = false;
      return;
    }
    const firstCell = line
      .trim()
      .slice(1)
      .split(/(?<!\\)\|/)[0]
      .trim();
    if (!inTable) {
      inTable = firstCell.toLowerCase() === 'variable';
      return;
    }
    if (/^:?-+:?$/.test(firstCell)) return;
    const names = [...firstCell.matchAll(/`([A-Z][A-Z0-9_]*(?:<ID>[A-Z0-9_]*)?)(?:=[^`]*)?`/g)].map((m) => m[1]);
    rows.push({ file, line: i + 1, names });
  });
  return rows;
}

/** Every option a person can set, by the name its row gives: the table's, and each pattern's fields. */
function documentedOptions(): string[] {
  return [
    ...Object.keys(OPTION_TABLE),
    ...Object.keys(OAUTH_PROVIDER_FIELDS).map((f) => `${OAUTH_PROVIDER_PREFIX}<ID>_${f}`),
    ...OIDC_CLIENT_DOCS.flatMap(({ fields }) => fields.map((f) => `${OIDC_CLIENT_PREFIX}<ID>_${f}`)),
    ...Object.keys(JWT_ISSUER_FIELDS).map((f) => `${JWT_ISSUER_PREFIX}<ID>_${f}`),
  ];
}

function markdownFiles(): string[] {
  const files = ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md'].map((f) => join(ROOT, f));
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) files.push(path);
    }
  };
  walk(join(ROOT, 'docs'));
  return files;
}

describe('each option is documented once', () => {
  const rows = markdownFiles()
    .map((path) => relative(ROOT, path))
    .filter((file) => OTHER_SETTINGS[file] === undefined)
    .flatMap((file) => optionRows(file, readFileSync(join(ROOT, file), 'utf8')));

  it('reads the option tables (the generated ones of docs/configuration.md among them)', () => {
    expect(rows.filter((r) => r.file === 'docs/configuration.md').length).toBeGreaterThan(50);
  });

  it('names every option in exactly one row of the option tables', () => {
    const wrong = documentedOptions()
      .map((option) => ({ option, where: rows.filter((r) => r.names.includes(option)).map((r) => `${r.file}:${r.line}`) }))
      .filter(({ where }) => where.length !== 1)
      .map(({ option, where }) => `${option}: ${where.length === 0 ? 'in no row' : `in ${where.length} rows (${where.join(', ')})`}`);
    expect(wrong).toEqual([]);
  });

  it('names nothing in an option table that is not an option (or its _FILE variant)', () => {
    const known = new Set([...OPTION_NAMES, ...documentedOptions(), ...documentedOptions().map((o) => `${o}_FILE`)]);
    const unknown = rows.flatMap((r) => r.names.filter((n) => !known.has(n)).map((n) => `${r.file}:${r.line}: ${n}`));
    expect(unknown).toEqual([]);
  });

  describe('the table reader', () => {
    const doc = [
      '| variable | default | meaning |',
      '|---|---|---|',
      '| `PORT` / `ADDRESS` | `3000` | listen |',
      '| `OIDC_CLIENTS_<ID>_NAME` | id | a `NOT_A_NAME_CELL` in the meaning |',
      '',
      '| setting | value |',
      '|---|---|',
      '| `SECRET` | elsewhere |',
      '',
      '```',
      '| variable | x |',
      '| `LOG_LEVEL` | in code |',
      '```',
    ].join('\n');

    it('reads the first cell of tables headed "variable" only, outside code blocks', () => {
      expect(optionRows('d.md', doc)).toEqual([
        { file: 'd.md', line: 3, names: ['PORT', 'ADDRESS'] },
        { file: 'd.md', line: 4, names: ['OIDC_CLIENTS_<ID>_NAME'] },
      ]);
    });
  });
});
