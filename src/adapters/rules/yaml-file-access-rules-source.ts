import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AccessRulesSource } from '../../application/ports/access-rules-source';
import { compileAccessRules, type AccessRules, type SecretReader } from '../../domain/access-rules';
import { err, type Result } from '../../domain/result';
import type { Logger } from '../system/logger';
import { WatchedFile } from '../system/watched-file';
import { lazyModule } from '../system/lazy-module';
import { InMemoryAccessRulesSource } from './in-memory-access-rules-source';

const yaml = lazyModule(() => require('yaml') as typeof import('yaml'));

/** Reads a whole file as UTF-8; throws when it cannot. */
export type FileReader = (path: string) => string;

const defaultReader: FileReader = (path) => readFileSync(path, 'utf8');

/** Parses and validates rules from YAML text; every problem is returned, each with its place. */
export function parseAccessRulesYaml(text: string, readSecret: SecretReader): Result<AccessRules, string[]> {
  const doc = yaml().parseDocument(text, { uniqueKeys: true, prettyErrors: true });
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
  private readonly held: InMemoryAccessRulesSource;
  private readonly path: string;
  private readonly readFile: FileReader;
  private readonly logger: Logger | undefined;
  private readonly file: WatchedFile;

  /** Loads the file now; throws InvalidAccessRulesError listing every problem when it is not valid. */
  constructor(path: string, options: YamlFileAccessRulesOptions = {}) {
    this.path = resolve(path);
    this.readFile = options.readFile ?? defaultReader;
    this.logger = options.logger;
    // Watched before the first read, so a change made while it is read is noticed.
    this.file = new WatchedFile(this.path, {
      pollMs: options.pollMs ?? 2000,
      debounceMs: options.debounceMs ?? 150,
      onChange: () => this.reloadOnChange(),
      onWatchError: (reason) => this.logger?.warn('access rules file cannot be watched; polling only', { file: this.path, reason }),
    });
    const loaded = loadAccessRulesFile(this.path, this.readFile);
    if (!loaded.ok) {
      this.file.close();
      throw new InvalidAccessRulesError(loaded.error);
    }
    this.held = new InMemoryAccessRulesSource(loaded.value);
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
    const loaded = loadAccessRulesFile(this.path, this.readFile);
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
    this.file.close();
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
