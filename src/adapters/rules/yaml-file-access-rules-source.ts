import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AccessRulesSource } from '../../application/forward-auth/access-rules-source';
import type { AccessRules } from '../../domain/access-rules';
import { loadAccessRulesFile, type FileReader } from '../../config/rules';
import type { Logger } from '../system/logger';
import { WatchedFile } from '../system/watched-file';
import { InMemoryAccessRulesSource } from './in-memory-access-rules-source';

const defaultReader: FileReader = (path) => readFileSync(path, 'utf8');

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
