import { readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { AccessRulesSource } from '../../application/ports/access-rules-source';
import { compileAccessRules, type AccessRules, type SecretReader } from '../../domain/access-rules';
import { err, type Result } from '../../domain/result';
import type { Logger } from '../system/logger';

/** Reads a whole file as UTF-8; throws when it cannot. */
export type FileReader = (path: string) => string;

const defaultReader: FileReader = (path) => readFileSync(path, 'utf8');

/** Parses and validates rules from YAML text; every problem is returned, each with its place. */
export function parseAccessRulesYaml(text: string, readSecret: SecretReader): Result<AccessRules, string[]> {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) return err(doc.errors.map((e) => `YAML: ${e.message.split('\n')[0]}`));
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return err([`YAML: ${e instanceof Error ? e.message.split('\n')[0] : 'cannot be read'}`]);
  }
  return compileAccessRules(data, readSecret);
}

/** Reads, parses and validates a rules file; password files are read through the same reader. */
export function loadAccessRulesFile(path: string, readFile: FileReader = defaultReader): Result<AccessRules, string[]> {
  let text: string;
  try {
    text = readFile(path);
  } catch {
    return err([`cannot read ${path}`]);
  }
  return parseAccessRulesYaml(text, (secretPath) => {
    try {
      return readFile(secretPath);
    } catch {
      return null;
    }
  });
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
}

/**
 * Access rules from a YAML file (`ACCESS_CONFIG`), reloaded when the file changes. The directory is
 * watched (editors often replace a file rather than write it in place) and the file is also polled
 * by stat as a fallback; bursts of changes are debounced. A change that does not validate is
 * refused as a whole: the last good rules stay, and the problems are logged.
 */
export class YamlFileAccessRulesSource implements AccessRulesSource {
  private rules: AccessRules;
  private loads = 1;
  private lastProblems: readonly string[] = [];
  private watcher: FSWatcher | null = null;
  private poller: NodeJS.Timeout | null = null;
  private pending: NodeJS.Timeout | null = null;
  private lastStat: string;
  private closed = false;
  private readonly path: string;
  private readonly readFile: FileReader;
  private readonly logger: Logger | undefined;
  private readonly debounceMs: number;

  /** Loads the file now; throws InvalidAccessRulesError listing every problem when it is not valid. */
  constructor(path: string, options: YamlFileAccessRulesOptions = {}) {
    this.path = resolve(path);
    this.readFile = options.readFile ?? defaultReader;
    this.logger = options.logger;
    this.debounceMs = options.debounceMs ?? 150;
    this.lastStat = this.statKey();
    const loaded = loadAccessRulesFile(this.path, this.readFile);
    if (!loaded.ok) throw new InvalidAccessRulesError(loaded.error);
    this.rules = loaded.value;
    this.startWatching(options.pollMs ?? 2000);
  }

  current(): AccessRules {
    return this.rules;
  }

  version(): number {
    return this.loads;
  }

  problems(): readonly string[] {
    return this.lastProblems;
  }

  /** Reads the file again now (also what a detected change does). Returns true when new rules are in force. */
  reload(): boolean {
    const loaded = loadAccessRulesFile(this.path, this.readFile);
    if (!loaded.ok) {
      this.lastProblems = loaded.error;
      this.logger?.warn('access rules not reloaded; the last good rules stay in force', { file: this.path, problems: loaded.error });
      return false;
    }
    this.rules = loaded.value;
    this.loads += 1;
    this.lastProblems = [];
    this.logger?.info('access rules reloaded', { file: this.path, apps: loaded.value.apps.length });
    return true;
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    this.watcher = null;
    if (this.poller !== null) clearInterval(this.poller);
    if (this.pending !== null) clearTimeout(this.pending);
    this.poller = null;
    this.pending = null;
  }

  private startWatching(pollMs: number): void {
    const name = basename(this.path);
    try {
      this.watcher = watch(dirname(this.path), { persistent: false }, (_event, filename) => {
        if (filename === null || filename === name) this.schedule();
      });
      this.watcher.on('error', () => {
        this.logger?.warn('access rules file watch failed; polling only', { file: this.path });
        this.watcher?.close();
        this.watcher = null;
      });
    } catch {
      this.logger?.warn('access rules file cannot be watched; polling only', { file: this.path });
    }
    if (pollMs > 0) {
      this.poller = setInterval(() => {
        const key = this.statKey();
        if (key !== this.lastStat) this.schedule();
      }, pollMs);
      this.poller.unref();
    }
  }

  private schedule(): void {
    if (this.closed) return;
    if (this.pending !== null) clearTimeout(this.pending);
    this.pending = setTimeout(() => {
      this.pending = null;
      if (this.closed) return;
      this.lastStat = this.statKey();
      try {
        this.reload();
      } catch (e) {
        // A reload must never take the gateway down; the last good rules stay.
        this.logger?.error('access rules reload failed', { file: this.path, error: e instanceof Error ? e.name : 'unknown' });
      }
    }, this.debounceMs);
    this.pending.unref();
  }

  private statKey(): string {
    try {
      const s = statSync(this.path);
      return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
    } catch {
      return 'missing';
    }
  }
}
