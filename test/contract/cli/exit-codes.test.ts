import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli } from '../../support/process';

/**
 * The README's "Exit codes" table is the operator's contract (scripts and supervisors act on it:
 * the systemd unit does not restart on 2). This test fails when the table and the program differ:
 * every code the program can end with is in the table, every code in the table is used, each
 * example in the table ends with its row's code, and no other document names another code.
 */

/** The files that decide a process exit code: the entry points and every CLI command. */
const EXIT_CODE_FILES = [
  'bin/portcullis.js',
  'src/main.ts',
  'src/cli/serve.ts',
  'src/cli/run-portcullis.ts',
  'src/cli/explain.ts',
  'src/cli/commands/run-cli.ts',
  'src/cli/doctor/doctor-command.ts',
];

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
  );
}

/** Literal exit codes in a source file: `process.exit(<n>)`, `process.exit(c ? <n> : <m>)`, and `return <n>;` / `return c ? <n> : <m>;`. */
function codesIn(file: string): number[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const codes: number[] = [];
  for (const m of text.matchAll(/process\.exit\(([^)]*)\)/g)) for (const n of m[1].match(/\b\d+\b/g) ?? []) codes.push(Number(n));
  for (const m of text.matchAll(/\breturn\s+(?:[^;?]*\?\s*)?(\d+)(?:\s*:\s*(\d+))?\s*;/g)) {
    codes.push(Number(m[1]));
    if (m[2] !== undefined) codes.push(Number(m[2]));
  }
  return codes;
}

interface Row {
  readonly code: number;
  readonly examples: string[];
}

function readmeTable(): Row[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('### Exit codes');
  if (start === -1) throw new Error('README.md has no "### Exit codes" section');
  const section = readme.slice(start, readme.indexOf('\n#', start + 1));
  return [...section.matchAll(/^\| `(\d+)` \|[^|]*\| (.*) \|$/gm)].map((m) => ({
    code: Number(m[1]),
    examples: [...m[2].matchAll(/`([^`]+)`/g)].map((e) => e[1]),
  }));
}

/** `NAME=value ... portcullis args...` (no quoting): the environment and the arguments. */
function parseExample(example: string): { env: Record<string, string>; args: string[] } {
  const words = example.split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name] = value.join('=');
  }
  expect(words.shift()).toBe('portcullis');
  return { env, args: words };
}

describe('exit codes: the README and the program agree', () => {
  let rows: Row[] = [];
  beforeAll(() => {
    rows = readmeTable();
  });

  it('the program ends only with the codes the README lists, and uses every one of them', () => {
    // A new file that calls process.exit must join the list above (and its codes the README).
    const exiting = filesUnder('src').filter((f) => readFileSync(join(ROOT, f), 'utf8').includes('process.exit('));
    expect(exiting.filter((f) => !EXIT_CODE_FILES.includes(f))).toEqual([]);
    const used = new Set(EXIT_CODE_FILES.flatMap(codesIn));
    const documented = new Set(rows.map((r) => r.code));
    expect([...documented].sort()).toEqual([...used].sort());
    expect(documented.size).toBeGreaterThanOrEqual(3);
  });

  it('each example in the table ends with its row’s code', async () => {
    const examples = rows.flatMap((r) => r.examples.map((e) => ({ code: r.code, example: e })));
    expect(examples.length).toBeGreaterThanOrEqual(rows.length);
    for (const { code, example } of examples) {
      const { env, args } = parseExample(example);
      const run = await runCli(args, { env });
      expect({ example, code: run.code }).toEqual({ example, code });
      // Never a stack trace, whatever the code.
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  }, 60_000);

  it('no document names an exit code the program does not use', () => {
    const documented = new Set(rows.map((r) => r.code));
    const docs = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const named: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      for (const m of text.matchAll(/\bexit(?:s| code| status)(?: with(?: code)?)?\s+`?(\d+)`?/gi)) {
        if (!documented.has(Number(m[1]))) named.push(`${doc}: ${m[0]}`);
      }
    }
    expect(named).toEqual([]);
  });
});
