import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AccessRulesSource } from '../../application/forward-auth/access-rules-source';
import { compileAccessRules, type AccessRules, type SecretReader } from '../../domain/access-rules';
import { err, type Result } from '../../domain/result';
import type { Logger } from '../system/logger';
import { WatchedFile } from '../system/watched-file';
import type { Document as YamlDocument, LineCounter } from 'yaml';
import { InMemoryAccessRulesSource } from './in-memory-access-rules-source';

/** Reads a whole file as UTF-8; throws when it cannot. */
export type FileReader = (path: string) => string;

const defaultReader: FileReader = (path) => readFileSync(path, 'utf8');

/** The lists whose entries are names (users, groups, e-mails, hosts), under `apps.<name>` and `default`. */
const NAME_LISTS: readonly (readonly string[])[] = [['users', 'allow'], ['users', 'block'], ['oauth', 'whitelist'], ['oauth', 'groups'], ['domain']];

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

/** Thrown when the rules file is invalid at start-up; `problems` lists every one. */
export class InvalidAccessRulesError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid access rules: ${problems.join('; ')}`);
    this.name = 'InvalidAccessRulesError';
  }
}

export interface YamlFileAccessRulesOptions {
  readonly logger?: Logger;
  /** Stat polling interval, the fallback when file events do not arrive (network mounts, some editors). */
  readonly pollMs?: number;
  /** Changes within this window are read once. */
  readonly debounceMs?: number;
  readonly readFile?: FileReader;
  /** The rules as already loaded from this file (the configuration validated them): not read again. */
  readonly initial?: AccessRules;
  /** False: construct only, and watch from {@link YamlFileAccessRulesSource.start} (the gateway's start). Default true. */
  readonly watch?: boolean;
}

/**
 * Access rules from a YAML file (`ACCESS_CONFIG`), reloaded when the file changes. The directory is
 * watched (editors often replace a file rather than write it in place) and the file is also polled
 * by stat as a fallback; bursts of changes are debounced. A change that does not validate is
 * refused as a whole: the last good rules stay, and the problems are logged.
 */
export class YamlFileAccessRulesSource implements AccessRulesSource {
  private readonly held: InMemoryAccessRulesSource;
  private readonly path: string;
  private readonly readFile: FileReader;
  private readonly logger: Logger | undefined;
  private readonly options: YamlFileAccessRulesOptions;
  private file: WatchedFile | null = null;
  private closed = false;

  /**
   * Loads the file now unless `initial` holds it already; throws InvalidAccessRulesError listing
   * every problem when it is not valid. Watches it now unless `watch` is false.
   */
  constructor(
    path: string,
    private readonly yaml: typeof import('yaml'),
    options: YamlFileAccessRulesOptions = {},
  ) {
    this.path = resolve(path);
    this.readFile = options.readFile ?? defaultReader;
    this.logger = options.logger;
    this.options = options;
    // Watched before the first read, so a change made while it is read is noticed.
    if (options.watch !== false) this.start();
    let rules = options.initial;
    if (rules === undefined) {
      const loaded = loadAccessRulesFile(this.path, this.yaml, this.readFile);
      if (!loaded.ok) {
        this.close();
        throw new InvalidAccessRulesError(loaded.error);
      }
      rules = loaded.value;
    }
    this.held = new InMemoryAccessRulesSource(rules);
  }

  /** Starts watching the file for changes. Idempotent; nothing after {@link close}. */
  start(): void {
    if (this.file !== null || this.closed) return;
    this.file = new WatchedFile(this.path, {
      pollMs: this.options.pollMs ?? 2000,
      debounceMs: this.options.debounceMs ?? 150,
      onChange: () => this.reloadOnChange(),
      onWatchError: (reason) => this.logger?.warn('access rules file cannot be watched; polling only', { file: this.path, reason }),
    });
  }

  current(): AccessRules {
    return this.held.current();
  }

  version(): number {
    return this.held.version();
  }

  problems(): readonly string[] {
    return this.held.problems();
  }

  /** Reads the file again now (also what a detected change does). Returns true when new rules are in force. */
  reload(): boolean {
    const loaded = loadAccessRulesFile(this.path, this.yaml, this.readFile);
    if (!loaded.ok) {
      this.held.refuse(loaded.error);
      this.logger?.warn('access rules not reloaded; the last good rules stay in force', { file: this.path, problems: loaded.error });
      return false;
    }
    this.held.replace(loaded.value);
    this.logger?.info('access rules reloaded', { file: this.path, apps: loaded.value.apps.length });
    return true;
  }

  close(): void {
    this.closed = true;
    this.file?.close();
  }

  private reloadOnChange(): void {
    try {
      this.reload();
    } catch (e) {
      // A reload must never take the gateway down; the last good rules stay.
      this.logger?.error('access rules reload failed', { file: this.path, error: e instanceof Error ? e.name : 'unknown' });
    }
  }
}
