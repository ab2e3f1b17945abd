import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Account } from '../../domain/account';
import type { PasswordHasher } from '../../application/ports/password-hasher';
import type { UserStore } from '../../application/ports/user-store';
import type { Logger } from '../system/logger';
import { WatchedFile } from '../system/watched-file';
import { StaticUserStore } from './static-user-store';
import { accountFromFileEntry, parseUsersFile, type UsersFileEntry, type YamlLoader } from '../../config/users-file';

export interface FileUserStoreOptions {
  /** How often the file's size, time and inode are compared, for file systems without change events. */
  readonly pollIntervalMs?: number;
  /** Quiet time after the last change before the file is read, so a save in several writes is read once. */
  readonly debounceMs?: number;
  /** Set false to reload only through {@link FileUserStore.reload} (tests). */
  readonly watch?: boolean;
  /** Set false to rely on polling alone (as on file systems that send no change events). */
  readonly fsEvents?: boolean;
  /** Told about every reload attempt, after it finished. */
  readonly onReload?: (outcome: ReloadOutcome) => void;
}

export type ReloadOutcome =
  /** `removed`: the usernames (lower-cased) that could log in before and no longer can (gone from the file, or disabled). */
  | { readonly kind: 'reloaded'; readonly accounts: number; readonly removed: readonly string[] }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'rejected'; readonly problems: readonly string[] }
  | { readonly kind: 'unreadable'; readonly reason: string };

/**
 * Accounts from `USERS_FILE` (line format or YAML), reloaded when the file changes. A change is
 * noticed through a watch on the file's directory (which also sees editors that save by renaming
 * and Kubernetes' symlink swaps) and, as a fallback, by polling its metadata. A file that does not
 * parse keeps the last good list in force and the log says why. Lookups are Map reads.
 */
export class FileUserStore implements UserStore {
  private active: StaticUserStore;
  private digest: string | null = null;
  private running: Promise<ReloadOutcome> | null = null;
  private again = false;
  private closed = false;
  private file: WatchedFile | null = null;
  /** The usernames (lower-cased) that can log in now. */
  private usernames = new Set<string>();
  /** The file's disabled accounts as last loaded: they cannot log in, but the admin console lists them. */
  private disabled: Account[] = [];

  constructor(
    private readonly path: string,
    initial: readonly UsersFileEntry[],
    private readonly domain: string,
    private readonly hasher: PasswordHasher,
    private readonly logger: Logger,
    /** The `yaml` library, asked for only when the file is in the YAML form (composition loads it). */
    private readonly yaml: YamlLoader,
    private readonly options: FileUserStoreOptions = {},
  ) {
    this.active = this.storeOf(initial);
  }

  /**
   * Starts watching the file (a directory watch and a metadata poll). Not done by the constructor,
   * so building a gateway starts no watcher; `gateway.start()` calls this. Idempotent; a no-op
   * with `watch: false` or after {@link close}.
   */
  start(): void {
    if (this.file !== null || this.closed || this.options.watch === false) return;
    const path = this.path;
    this.file = new WatchedFile(path, {
      pollMs: this.options.pollIntervalMs ?? 2000,
      debounceMs: this.options.debounceMs ?? 250,
      fsEvents: this.options.fsEvents,
      onChange: () => void this.reload(),
      onWatchError: (reason) => this.logger.warn('users file cannot be watched; polling it instead', { path, reason }),
    });
  }

  /** Whether {@link start} has set up the watch (for tests). */
  get watching(): boolean {
    return this.file !== null;
  }

  /** Every account of the file as last loaded (the admin console's list, issue 36). */
  accounts(): Account[] {
    return this.active.accounts();
  }

  /** The disabled accounts of the file as last loaded (the admin console lists them as disabled). */
  disabledAccounts(): Account[] {
    return [...this.disabled];
  }

  findAccount(login: string): Account | null {
    return this.active.findAccount(login);
  }

  verifyPassword(account: Account, password: string, requester?: string): Promise<boolean> {
    // Checked against the current list: a password changed or an account removed since findAccount wins.
    return this.active.verifyPassword(account, password, requester);
  }

  verifyDecoy(login: string, password: string, requester?: string): Promise<false> {
    return this.active.verifyDecoy(login, password, requester);
  }

  /** From the list now in force: the same object until the next reload swaps in a new list. */
  currentAccount(username: string): Account | null {
    return this.active.currentAccount(username);
  }

  /** How many accounts can log in now (disabled ones not counted). */
  get size(): number {
    return this.active.size;
  }

  /** Reads the file now. Concurrent calls share one read; a call during a read schedules one more. */
  reload(): Promise<ReloadOutcome> {
    if (this.running !== null) {
      this.again = true;
      return this.running;
    }
    this.running = this.readAndSwap().finally(() => {
      this.running = null;
      if (this.again && !this.closed) {
        this.again = false;
        void this.reload();
      }
    });
    return this.running;
  }

  /** Stops watching and polling. */
  close(): void {
    this.closed = true;
    this.file?.close();
  }

  private async readAndSwap(): Promise<ReloadOutcome> {
    const outcome = await this.attempt();
    switch (outcome.kind) {
      case 'reloaded':
        this.logger.info('users file reloaded', { path: this.path, accounts: outcome.accounts });
        break;
      case 'rejected':
        this.logger.warn('users file has problems; the last good list stays in force', { path: this.path, problems: outcome.problems });
        break;
      case 'unreadable':
        this.logger.warn('users file cannot be read; the last good list stays in force', { path: this.path, reason: outcome.reason });
        break;
      case 'unchanged':
        break;
    }
    this.options.onReload?.(outcome);
    return outcome;
  }

  private async attempt(): Promise<ReloadOutcome> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (e) {
      return { kind: 'unreadable', reason: (e as NodeJS.ErrnoException).code ?? 'read error' };
    }
    const digest = createHash('sha256').update(text).digest('hex');
    if (digest === this.digest) return { kind: 'unchanged' };
    this.digest = digest;
    // An empty file is what a reader sees in the middle of most saves; emptying the list on
    // purpose takes a comment line (or `users: []`).
    if (text.length === 0) return { kind: 'rejected', problems: ['the file is empty (to remove every account, leave a comment line)'] };
    const parsed = parseUsersFile(text, this.path, this.yaml);
    if (parsed.problems.length > 0) return { kind: 'rejected', problems: parsed.problems };
    const before = this.usernames;
    this.active = this.storeOf(parsed.entries);
    const removed = [...before].filter((u) => !this.usernames.has(u));
    return { kind: 'reloaded', accounts: this.active.size, removed };
  }

  private storeOf(entries: readonly UsersFileEntry[]): StaticUserStore {
    const accounts = entries.filter((e) => e.disabled !== true).map((e) => accountFromFileEntry(e, this.domain));
    this.disabled = entries.filter((e) => e.disabled === true).map((e) => accountFromFileEntry(e, this.domain));
    this.usernames = new Set(accounts.map((a) => a.username.toLowerCase()));
    return new StaticUserStore(accounts, this.hasher);
  }
}
