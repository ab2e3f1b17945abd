import { readFileSync } from 'node:fs';
import type { Document as YamlDocument, LineCounter } from 'yaml';
import { compileAccessRules, type AccessRules, type SecretReader } from '../domain/access-rules';
import { err, type Result } from '../domain/result';
import type { EnvReader } from './env';
import { options, text } from './option-spec';

/** The rules section: ACCESS_CONFIG, the YAML file of access rules, read and validated at start-up. */

export const RULES_OPTIONS = options({
  ACCESS_CONFIG: {
    group: 'rules',
    parse: text,
    fallback: null,
    doc: {
      default: '—',
      meaning:
        'path of the access rules file (YAML). Validated at start-up (every problem is listed and the gateway does not start) and reloaded when it changes',
    },
  },
});

export interface RulesConfig {
  /** Path of the YAML access rules file, or null for "every logged-in person passes every application". */
  readonly accessConfig: string | null;
  /** The rules `accessConfig` held when the configuration was loaded (read once; the gateway watches it from then on). */
  readonly accessRules: AccessRules | null;
}

/** The rules file is validated now, so that start-up lists its problems with all the others. */
export function readRules(r: EnvReader, yaml: () => typeof import('yaml')): RulesConfig {
  const accessConfig = r.option(RULES_OPTIONS, 'ACCESS_CONFIG');
  let accessRules: AccessRules | null = null;
  if (accessConfig !== null) {
    const rules = loadAccessRulesFile(accessConfig, yaml(), r.readFile);
    if (rules.ok) accessRules = rules.value;
    else r.problems.push(...rules.error.map((p) => `ACCESS_CONFIG ${accessConfig}: ${p}`));
  }
  return { accessConfig, accessRules };
}

/** Reads a whole file as UTF-8; throws when it cannot. */
export type FileReader = (path: string) => string;

const defaultReader: FileReader = (path) => readFileSync(path, 'utf8');

/** The lists whose entries are names (users, groups, e-mails, hosts), under `apps.<name>`, `default` and their `paths` entries. */
const NAME_LISTS: readonly (readonly string[])[] = [
  ['users', 'allow'],
  ['users', 'block'],
  ['oauth', 'whitelist'],
  ['oauth', 'groups'],
  ['groups'],
  ['domain'],
];

/**
 * Parses and validates rules from YAML text; every problem is returned, each with its place (its
 * path in the document and, where the file has it, its line).
 */
export function parseAccessRulesYaml(text: string, readSecret: SecretReader, yaml: typeof import('yaml')): Result<AccessRules, string[]> {
  const lines = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { uniqueKeys: true, prettyErrors: true, lineCounter: lines });
  if (doc.errors.length > 0) return err(doc.errors.map((e) => `YAML: ${e.message.split('\n')[0]}`));
  namesAsWritten(doc, yaml);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return err([`YAML: ${e instanceof Error ? e.message.split('\n')[0] : 'cannot be read'}`]);
  }
  const compiled = compileAccessRules(data, readSecret);
  return compiled.ok ? compiled : err(compiled.error.map((problem) => withLine(problem, doc, lines)));
}

/**
 * Names are text as written. YAML's core schema would read an unquoted `007` as 7, `0x10` as 16,
 * `1e3` as 1000 and `true`/`null` as a boolean and nothing, so a block list naming user `007` would
 * block "7" and let `007` through (fail open). Every unquoted scalar of a name list keeps its
 * source text instead; an empty entry stays empty and is refused by the rules.
 */
function namesAsWritten(doc: YamlDocument, y: typeof import('yaml')): void {
  const sections: unknown[] = [doc.get('default', true)];
  const apps = doc.get('apps', true);
  if (y.isMap(apps)) for (const pair of apps.items) sections.push(pair.value);
  for (const section of [...sections]) {
    // Each `paths` entry's users and groups are names too.
    const entries = y.isMap(section) ? section.get('paths', true) : undefined;
    if (y.isSeq(entries)) sections.push(...entries.items);
  }
  for (const section of sections) {
    if (!y.isMap(section)) continue;
    for (const path of NAME_LISTS) {
      const list = section.getIn(path, true);
      const items = y.isSeq(list) ? list.items : [list];
      for (const item of items) {
        if (y.isScalar(item) && item.type === 'PLAIN' && typeof item.value !== 'string' && typeof item.source === 'string') item.value = item.source;
      }
    }
  }
}

/** `apps.wiki.users.block[1]: …` becomes `line 7: apps.wiki.users.block[1]: …` when the node is found. */
function withLine(problem: string, doc: YamlDocument, lines: LineCounter): string {
  const at = /^([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+|\[\d+\])*): /.exec(problem);
  if (at === null) return problem;
  const keys = at[1].split(/\.|(?=\[)/).map((k) => (k.startsWith('[') ? Number(k.slice(1, -1)) : k));
  for (let n = keys.length; n > 0; n -= 1) {
    const node = doc.getIn(keys.slice(0, n), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return `line ${lines.linePos(node.range[0]).line}: ${problem}`;
  }
  return problem;
}

/**
 * Reads, parses and validates a rules file; password files are read through the same reader. `yaml`
 * is the library, handed in by composition (optional-modules.ts) so only a gateway with rules loads it.
 */
export function loadAccessRulesFile(path: string, yaml: typeof import('yaml'), readFile: FileReader = defaultReader): Result<AccessRules, string[]> {
  let text: string;
  try {
    text = readFile(path);
  } catch {
    return err([`cannot read ${path}`]);
  }
  return parseAccessRulesYaml(
    text,
    (secretPath) => {
      try {
        return readFile(secretPath);
      } catch {
        return null;
      }
    },
    yaml,
  );
}
