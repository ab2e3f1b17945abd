import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Document, LineCounter } from 'yaml';
import { optionalModules } from '../../composition/optional-modules';
import { compileAccessRules } from '../../domain/access-rules';
import { didYouMean } from '../../domain/near-miss';
import { autheliaDecide, parseAutheliaAccessControl, type PlaceOf } from '../../domain/import/authelia-access';
import { readAutheliaSettings } from '../../domain/import/authelia-settings';
import { translateAutheliaAccess, type TranslationLine } from '../../domain/import/authelia-translate';
import { applyTotpUris, formatUsersYaml, parseAutheliaUsers, type ImportedAccount } from '../../domain/import/authelia-users';
import { compareDecisions, parseCheckRequests } from '../../domain/import/check-requests';
import { importTinyauth } from '../../domain/import/tinyauth';
import type { CliIo } from '../cli-io';

export const IMPORT_HELP = `Usage: portcullis import authelia --config <configuration.yml> [--users <users_database.yml>]
                                 [--totp <otpauth URIs file>] --out <dir> [--check <requests.txt>] [--stricter] [--force]
       portcullis import tinyauth --env <file> [--compose <docker-compose.yml>] [--config <tinyauth.yml>]
                                 --out <dir> [--check <requests.txt>] [--stricter] [--force]

Writes, in <dir>, a users file (users.yml, Authelia only), an access rules file (access-rules.yml)
and an environment file (portcullis.env), and prints a report: every rule with its source line and
what it became, every setting carried over, and every one that was not.

The import never widens access. A rule the Portcullis rules file cannot express exactly is written
stricter and named in the report; without --stricter such a rule stops the import (exit 1).

  --check F    decide each request of F ("GET https://host/path user=NAME groups=a,b ip=ADDR factors=2",
               one a line) by the source's rules and by the written ones, and print both; a request
               Portcullis would let in that the source would not is an error (exit 1)
  --stricter   write the stricter rules instead of stopping
  --force      replace files already in <dir>
Exit codes: 0 written; 1 refused (a rule not exact without --stricter, or --check found a wider
decision); 2 bad input (unreadable file, invalid YAML, unknown key or policy, a regular expression
that does not compile), with the file and line. Nothing is written unless the exit code is 0.
`;

/** Bad input: exit 2, nothing written. */
class InputError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems[0]);
  }
}

interface Yaml {
  readonly data: unknown;
  readonly place: (prefix: readonly (string | number)[]) => PlaceOf;
  readonly lineOf: (path: readonly (string | number)[]) => number | null;
}

function pathText(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || '(top)';
}

function lineOfIn(doc: Document, lines: LineCounter, path: readonly (string | number)[]): number | null {
  for (let n = path.length; n >= 0; n -= 1) {
    const node = n === 0 ? doc.contents : (doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined);
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    if (range !== undefined) return lines.linePos(range[0]).line;
  }
  return null;
}

async function readText(io: CliIo, file: string): Promise<string> {
  try {
    return await io.readFile(file);
  } catch {
    throw new InputError([`${file}: cannot be read`]);
  }
}

/** Parses YAML with every problem placed by file and line. */
async function readYaml(io: CliIo, file: string): Promise<Yaml> {
  const yaml = optionalModules.yaml();
  const text = await readText(io, file);
  const lines = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { uniqueKeys: true, lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new InputError(
      doc.errors.map((e) => `${file}: line ${e.linePos?.[0]?.line ?? lines.linePos(e.pos[0]).line}: invalid YAML: ${e.message.split('\n')[0]}`),
    );
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new InputError([`${file}: invalid YAML: ${e instanceof Error ? e.message.split('\n')[0] : 'cannot be read'}`]);
  }
  const lineOf = (path: readonly (string | number)[]): number | null => lineOfIn(doc, lines, path);
  const place =
    (prefix: readonly (string | number)[]): PlaceOf =>
    (path) => {
      const full = [...prefix, ...path];
      const line = lineOf(full);
      return `${file}: ${line === null ? '' : `line ${line}: `}${pathText(full)}`;
    };
  return { data, place, lineOf };
}

function parseFlags(args: readonly string[], values: readonly string[], switches: readonly string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (switches.includes(flag) && eq === -1) flags.set(flag, 'true');
    else if (values.includes(flag)) {
      const value = eq === -1 ? args[(i += 1)] : arg.slice(eq + 1);
      if (value === undefined || value === '') throw new InputError([`${flag} needs a value`]);
      flags.set(flag, value);
    } else throw new InputError([`unknown option ${arg}${didYouMean(flag, [...values, ...switches])}`]);
  }
  return flags;
}

/** What an import produces before anything is written. */
export interface ImportResult {
  readonly files: readonly { readonly name: string; readonly text: string }[];
  readonly report: readonly string[];
  /** Report lines of rules and settings written stricter than the source. */
  readonly stricter: readonly string[];
  readonly rulesDocument: Record<string, unknown>;
}

function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A bcrypt-shaped value no password matches (random salt and digest), for accounts whose hash did not carry. */
function unusableHash(): string {
  const alphabet = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `$2b$10$${[...randomBytes(53)].map((b) => alphabet[b % 64]).join('')}`;
}

function ruleLine(l: TranslationLine, file: string): string {
  const source = l.rule === null ? 'default_policy' : `rule ${l.rule}${l.line === null ? '' : ` (${file} line ${l.line})`}`;
  return `${source} → ${l.target}: ${l.text}${l.stricter === null ? '' : `\n    STRICTER: ${l.stricter}`}`;
}

function rulesYaml(document: Record<string, unknown>, source: string): string {
  const yaml = optionalModules.yaml();
  return `# Written by portcullis import from ${source}. See docs/access-rules.md.\n# Entries "users: { block: ['/(?!)/'] }" block nobody: they only stop later entries (a login is enough).\n${yaml.stringify(document, { lineWidth: 0 })}`;
}

function envFile(env: readonly (readonly [string, string])[], out: string, withUsers: boolean): string {
  const lines = ['# Written by portcullis import. Owner-only: it holds secrets.'];
  if (!env.some(([k]) => k === 'SECRET' || k === 'SECRET_FILE')) lines.push(`SECRET=${randomBytes(48).toString('base64')}`);
  if (withUsers) lines.push(`USERS_FILE=${resolve(out, 'users.yml')}`);
  lines.push(`ACCESS_CONFIG=${resolve(out, 'access-rules.yml')}`);
  for (const [k, v] of env) lines.push(`${k}=${envValue(v)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * A value as the environment file holds it: as it is when no shell, systemd or Compose would read
 * anything into it; else in single quotes, so that the `$` of a hash (`$pbkdf2-sha512$…`) is not
 * taken for a variable when the file is sourced (`set -a; . portcullis.env`).
 */
function envValue(value: string): string {
  return /^[A-Za-z0-9_.,:/@%+=-]*$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

async function importAuthelia(flags: ReadonlyMap<string, string>, io: CliIo): Promise<ImportResult> {
  const configFile = flags.get('--config');
  if (configFile === undefined) throw new InputError(['import authelia needs --config <configuration.yml>']);
  const config = await readYaml(io, configFile);
  if (typeof config.data !== 'object' || config.data === null || Array.isArray(config.data)) throw new InputError([`${configFile}: must be a mapping`]);
  const problems: string[] = [];
  const ac = parseAutheliaAccessControl((config.data as Record<string, unknown>).access_control, config.place(['access_control']), (p) =>
    config.lineOf(['access_control', ...p]),
  );
  if (!ac.ok) problems.push(...ac.error);
  let accounts: ImportedAccount[] | null = null;
  const report: string[] = [];
  const usersFile = flags.get('--users');
  if (usersFile !== undefined) {
    const users = await readYaml(io, usersFile);
    const parsed = parseAutheliaUsers(users.data, users.place([]));
    if (!parsed.ok) problems.push(...parsed.error);
    else {
      accounts = [...parsed.value.accounts];
      report.push(...parsed.value.report, `${accounts.length} account(s) from ${usersFile}`);
    }
  }
  const totpFile = flags.get('--totp');
  if (totpFile !== undefined) {
    if (accounts === null) throw new InputError(['--totp needs --users (the accounts the secrets belong to)']);
    const totp = applyTotpUris(accounts, await readText(io, totpFile), totpFile);
    if (!totp.ok) problems.push(...totp.error);
    else {
      accounts = [...totp.value.accounts];
      report.push(...totp.value.report);
    }
  }
  const settings = readAutheliaSettings(config.data as Record<string, unknown>, config.place([]), accounts, randomSecret);
  problems.push(...settings.problems);
  if (problems.length > 0 || !ac.ok) throw new InputError(problems);
  const translation = translateAutheliaAccess(ac.value);
  const ruleLines = translation.lines.map((l) => ruleLine(l, configFile));
  const out = flags.get('--out') as string;
  const files = [
    ...(accounts === null ? [] : [{ name: 'users.yml', text: formatUsersYaml(accounts, unusableHash) }]),
    { name: 'access-rules.yml', text: rulesYaml(translation.document, configFile) },
    { name: 'portcullis.env', text: envFile(settings.env, out, accounts !== null) },
  ];
  const stricter = [...translation.lines.filter((l) => l.stricter !== null).map((l) => ruleLine(l, configFile)), ...settings.stricter];
  const check = flags.get('--check');
  const checkLines = check === undefined ? [] : await runCheck(io, check, translation.document, (r) => autheliaDecide(ac.value, r).outcome);
  return {
    files,
    report: [
      'Access rules:',
      ...ruleLines.map((l) => `  ${l}`),
      'Settings:',
      ...[...settings.report, ...settings.stricter.map((s) => `STRICTER: ${s}`), ...report].map((l) => `  ${l}`),
      ...checkLines,
    ],
    stricter,
    rulesDocument: translation.document,
  };
}

/** Thrown when --check finds a request the written rules let in and the source does not. */
class WiderError extends Error {
  constructor(readonly lines: readonly string[]) {
    super('wider');
  }
}

async function runCheck(io: CliIo, file: string, document: Record<string, unknown>, source: Parameters<typeof compareDecisions>[1]): Promise<string[]> {
  const parsed = parseCheckRequests(await readText(io, file), file);
  if (!parsed.ok) throw new InputError(parsed.error);
  const rules = compileAccessRules(document, () => 'imported');
  if (!rules.ok) throw new Error(`the written rules do not compile: ${rules.error.join('; ')}`);
  const results = compareDecisions(parsed.value, source, rules.value, Date.now());
  const lines = ['Check:', ...results.map((r) => `  ${r.wider ? 'WIDER ' : ''}line ${r.line}: ${r.text}: source ${r.source}, portcullis ${r.portcullis}`)];
  if (results.some((r) => r.wider)) throw new WiderError(lines);
  return lines;
}

async function writeAll(io: CliIo, out: string, files: ImportResult['files'], force: boolean): Promise<void> {
  if (!force) {
    for (const f of files) {
      const exists = await io.readFile(resolve(out, f.name)).then(
        () => true,
        () => false,
      );
      if (exists) throw new InputError([`${resolve(out, f.name)} exists: give --force to replace it`]);
    }
  }
  try {
    await io.makePrivateDirectory(out);
    for (const f of files) await io.writeSecretFile(resolve(out, f.name), Buffer.from(f.text), force);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError([`cannot write into ${out}`]);
  }
}

/** `portcullis import authelia|tinyauth …`: resolves the exit code. */
export async function importCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [source, ...rest] = args;
  if (source === undefined || source === '--help' || source === '-h' || rest.includes('--help') || rest.includes('-h')) {
    io.out(IMPORT_HELP);
    return source === undefined ? 2 : 0;
  }
  try {
    let result: ImportResult;
    if (source === 'authelia') {
      const flags = parseFlags(rest, ['--config', '--users', '--totp', '--out', '--check'], ['--stricter', '--force']);
      if (!flags.has('--out')) throw new InputError(['import needs --out <dir>']);
      result = await importAuthelia(flags, io);
      return await finish(result, flags, io);
    }
    if (source === 'tinyauth') {
      const flags = parseFlags(rest, ['--env', '--compose', '--config', '--out', '--check'], ['--stricter', '--force']);
      if (!flags.has('--out')) throw new InputError(['import needs --out <dir>']);
      result = await importTinyauthFiles(flags, io);
      return await finish(result, flags, io);
    }
    throw new InputError([`unknown source "${source}" (authelia or tinyauth)${didYouMean(source, ['authelia', 'tinyauth'])}`]);
  } catch (e) {
    if (e instanceof InputError) {
      io.err(
        `portcullis import: ${e.problems.length} problem${e.problems.length === 1 ? '' : 's'}; nothing written:\n${e.problems.map((p) => `  - ${p}\n`).join('')}`,
      );
      return 2;
    }
    if (e instanceof WiderError) {
      io.out(`${e.lines.join('\n')}\n`);
      io.err('portcullis import: the written rules would let in a request the source refuses (WIDER above); nothing written\n');
      return 1;
    }
    throw e;
  }
}

async function finish(result: ImportResult, flags: ReadonlyMap<string, string>, io: CliIo): Promise<number> {
  io.out(`${result.report.join('\n')}\n`);
  if (result.stricter.length > 0 && !flags.has('--stricter')) {
    io.err(
      `portcullis import: ${result.stricter.length} rule(s) or setting(s) cannot be expressed exactly (STRICTER above); nothing written. Give --stricter to write the stricter version.\n`,
    );
    return 1;
  }
  const out = flags.get('--out') as string;
  await writeAll(io, out, result.files, flags.has('--force'));
  for (const f of result.files) io.out(`wrote ${resolve(out, f.name)}\n`);
  if (result.stricter.length > 0) io.out(`${result.stricter.length} rule(s) or setting(s) were written STRICTER than the source (see above).\n`);
  return 0;
}

async function importTinyauthFiles(flags: ReadonlyMap<string, string>, io: CliIo): Promise<ImportResult> {
  const envFileName = flags.get('--env');
  if (envFileName === undefined) throw new InputError(['import tinyauth needs --env <file>']);
  const envText = await readText(io, envFileName);
  const compose = flags.get('--compose') === undefined ? null : await readYaml(io, flags.get('--compose') as string);
  const config = flags.get('--config') === undefined ? null : await readYaml(io, flags.get('--config') as string);
  const result = importTinyauth({
    env: { text: envText, file: envFileName },
    compose: compose === null ? null : { data: compose.data, place: compose.place([]) },
    config: config === null ? null : { data: config.data, place: config.place([]) },
    outDir: resolve(flags.get('--out') as string),
  });
  if (!result.ok) throw new InputError(result.error);
  const compiled = compileAccessRules(result.value.rules, () => 'imported');
  if (!compiled.ok) throw new InputError(compiled.error.map((p) => `the labels give rules Portcullis refuses: ${p}`));
  const out = flags.get('--out') as string;
  const files = [
    { name: 'access-rules.yml', text: rulesYaml(result.value.rules, 'tinyauth') },
    { name: 'portcullis.env', text: envFile(result.value.env, out, false) },
    ...result.value.secretFiles,
  ];
  const check = flags.get('--check');
  const checkLines = check === undefined ? [] : await runCheck(io, check, result.value.rules, result.value.decide);
  return {
    files,
    report: [...result.value.report, ...result.value.stricter.map((s) => `STRICTER: ${s}`), ...checkLines],
    stricter: result.value.stricter,
    rulesDocument: result.value.rules,
  };
}
