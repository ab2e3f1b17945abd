import { createHash } from 'node:crypto';
import { statSync, watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Account } from '../../domain/account';
import type { PasswordHasher } from '../../application/ports/password-hasher';
import type { UserStore } from '../../application/ports/user-store';
import type { Logger } from '../system/logger';
import { AccountIndex } from './account-index';
import { accountFromFileEntry, parseUsersFile, type UsersFileEntry } from './users-file';

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
  | { readonly kind: 'reloaded'; readonly accounts: number }
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
  private active: AccountIndex;
  private digest: string | null = null;
  private signature = '';
  private watcher: FSWatcher | null = null;
  private poller: NodeJS.Timeout | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private running: Promise<ReloadOutcome> | null = null;
  private again = false;
  private closed = false;
  private readonly debounceMs: number;

  constructor(
    private readonly path: string,
    initial: readonly UsersFileEntry[],
    private readonly domain: string,
    private readonly hasher: PasswordHasher,
    private readonly logger: Logger,
    private readonly options: FileUserStoreOptions = {},
  ) {
    this.active = this.indexOf(initial);
    this.debounceMs = options.debounceMs ?? 250;
    if (options.watch !== false) this.startWatching(options.pollIntervalMs ?? 2000, options.fsEvents !== false);
  }

  async findAccount(login: string): Promise<Account | null> {
    return this.active.find(login);
  }

  async verifyPassword(account: Account, password: string): Promise<boolean> {
    // Checked against the current list: a password changed or an account removed since findAccount wins.
    const known = this.active.byUsername(account.username);
    if (known === null) return false;
    return this.hasher.verify(password, known.credentialVersion);
  }

  async isAccountActive(username: string): Promise<boolean> {
    return this.active.byUsername(username) !== null;
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
    this.watcher?.close();
    this.watcher = null;
    if (this.poller !== null) clearInterval(this.poller);
    if (this.debounce !== null) clearTimeout(this.debounce);
    this.poller = this.debounce = null;
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
    const parsed = parseUsersFile(text, this.path);
    if (parsed.problems.length > 0) return { kind: 'rejected', problems: parsed.problems };
    this.active = this.indexOf(parsed.entries);
    return { kind: 'reloaded', accounts: this.active.size };
  }

  private indexOf(entries: readonly UsersFileEntry[]): AccountIndex {
    return new AccountIndex(entries.filter((e) => e.disabled !== true).map((e) => accountFromFileEntry(e, this.domain)));
  }

  private startWatching(pollIntervalMs: number, fsEvents: boolean): void {
    const name = basename(this.path);
    if (fsEvents) try {
      this.watcher = watch(dirname(this.path), { persistent: false }, (_event, changed) => {
        // Kubernetes swaps a `..data` symlink; other tools rename temporary files over the target.
        if (changed === null || changed === name || changed.startsWith('..') || changed.includes(name)) this.schedule();
      });
      this.watcher.on('error', (e) => {
        this.logger.warn('users file watch failed; falling back to polling', { path: this.path, reason: (e as NodeJS.ErrnoException).code ?? 'error' });
        this.watcher?.close();
        this.watcher = null;
      });
    } catch (e) {
      this.logger.info('users file cannot be watched; polling it instead', { path: this.path, reason: (e as NodeJS.ErrnoException).code ?? 'error' });
    }
    // The baseline is taken now, synchronously: a change made right after start-up must differ from it.
    this.signature = signatureOf(() => statSync(this.path));
    if (pollIntervalMs > 0) {
      this.poller = setInterval(() => {
        void this.stat().then((sig) => {
          if (sig !== this.signature) {
            this.signature = sig;
            this.schedule();
          }
        });
      }, pollIntervalMs);
      this.poller.unref();
    }
  }

  private async stat(): Promise<string> {
    try {
      const s = await stat(this.path);
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch (e) {
      return `missing:${(e as NodeJS.ErrnoException).code ?? ''}`;
    }
  }


  private schedule(): void {
    if (this.closed) return;
    if (this.debounce !== null) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = null;
      void this.reload();
    }, this.debounceMs);
    this.debounce.unref();
  }
}

function signatureOf(read: () => { ino: number; size: number; mtimeMs: number }): string {
  try {
    const s = read();
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch (e) {
    return `missing:${(e as NodeJS.ErrnoException).code ?? ''}`;
  }
}
