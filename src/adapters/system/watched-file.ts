import { statSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

export interface WatchedFileOptions {
  /** How often the file's metadata is compared, for file systems without change events (network mounts); 0 turns polling off. */
  readonly pollMs: number;
  /** Quiet time after the last change before `onChange` runs, so a save in several writes is read once. */
  readonly debounceMs: number;
  /** Set false to rely on polling alone. */
  readonly fsEvents?: boolean;
  /** Runs once per burst of changes. Reading the file, and keeping the last good content, is the caller's job. */
  readonly onChange: () => void;
  /** Told why change events cannot be had, at the start or later; polling goes on. */
  readonly onWatchError: (reason: string) => void;
}

/**
 * Notices changes to one file. The directory is watched, not the file: editors often save by
 * renaming a new file over the old one, and Kubernetes swaps a `..data` symlink beside it. Polling
 * the file's metadata is the fallback where change events do not arrive.
 */
export class WatchedFile {
  private signature: string;
  private watcher: FSWatcher | null = null;
  private poller: NodeJS.Timeout | null = null;
  private pending: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly options: WatchedFileOptions,
  ) {
    // The baseline is taken now, synchronously: a change made right after start-up must differ from it.
    this.signature = signatureOf(() => statSync(path));
    if (options.fsEvents !== false) this.watch();
    if (options.pollMs > 0) this.poll(options.pollMs);
  }

  /** Stops watching and polling; a pending `onChange` does not run. Idempotent. */
  close(): void {
    this.closed = true;
    this.watcher?.close();
    this.watcher = null;
    if (this.poller !== null) clearInterval(this.poller);
    if (this.pending !== null) clearTimeout(this.pending);
    this.poller = this.pending = null;
  }

  private watch(): void {
    const name = basename(this.path);
    try {
      this.watcher = watch(dirname(this.path), { persistent: false }, (_event, changed) => {
        if (changed === null || changed === name || changed.startsWith('..')) this.schedule();
      });
      this.watcher.on('error', (e) => {
        this.options.onWatchError(reasonOf(e));
        this.watcher?.close();
        this.watcher = null;
      });
    } catch (e) {
      this.options.onWatchError(reasonOf(e));
    }
  }

  private poll(pollMs: number): void {
    this.poller = setInterval(() => {
      void signatureOfAsync(this.path).then((signature) => {
        if (signature === this.signature) return;
        this.signature = signature;
        this.schedule();
      });
    }, pollMs);
    this.poller.unref();
  }

  private schedule(): void {
    if (this.closed) return;
    if (this.pending !== null) clearTimeout(this.pending);
    this.pending = setTimeout(() => {
      this.pending = null;
      if (this.closed) return;
      // Whatever the owner reads now is what the next poll compares against, so an event already
      // handled does not bring a second read when the poll sees the same change.
      this.signature = signatureOf(() => statSync(this.path));
      this.options.onChange();
    }, this.options.debounceMs);
    this.pending.unref();
  }
}

function signatureOf(read: () => Stats): string {
  try {
    return keyOf(read());
  } catch (e) {
    return `missing:${reasonOf(e)}`;
  }
}

async function signatureOfAsync(path: string): Promise<string> {
  try {
    return keyOf(await stat(path));
  } catch (e) {
    return `missing:${reasonOf(e)}`;
  }
}

// The change time is in the key too: a copy that keeps size and modification time (`cp -p`) still moves it.
function keyOf(s: Stats): string {
  return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
}

function reasonOf(e: unknown): string {
  return (e as NodeJS.ErrnoException | null)?.code ?? 'error';
}
