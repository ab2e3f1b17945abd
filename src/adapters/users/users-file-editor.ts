import { createHash, randomBytes } from 'node:crypto';
import { chown, open, readFile, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { AccountChange, AccountEditError, AccountEditor } from '../../application/ports/account-editor';
import { err, ok, type Result } from '../../domain/result';
import { parseUsersFile, type ParseUsersFileResult, type YamlLoader } from '../../config/users-file';
import { editUsersFileText } from './users-file-text';

export interface UsersFileEditorOptions {
  /**
   * Runs after each write, before `edit` resolves: composition hands the file store's reload here,
   * so a disabled or deleted person's sessions end at once rather than when the watcher notices.
   */
  readonly afterWrite?: () => Promise<unknown>;
}

function digestOf(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Writes the admin console's changes to `USERS_FILE` (issue 36), in either form, as a hand edit
 * would: only the changed entry's text changes (see users-file-text.ts). Each write goes to a
 * temporary file in the same directory (same mode, flushed to disk) that is renamed over the file,
 * so a reader sees the old file or the new one, never half of one. Right before the rename the file
 * is read again: if it changed since this edit read it (a hand edit landed in between), nothing is
 * written and the edit fails with `users_file_changed`. Edits in this process run one at a time.
 */
export class UsersFileEditor implements AccountEditor {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly yaml: YamlLoader,
    private readonly options: UsersFileEditorOptions = {},
  ) {}

  async version(): Promise<string> {
    return digestOf(await readFile(this.path));
  }

  /** The file as on disk now, parsed, with its version: disabled entries included (the stores hide them). */
  async read(): Promise<{ readonly version: string; readonly parsed: ParseUsersFileResult }> {
    const bytes = await readFile(this.path);
    return { version: digestOf(bytes), parsed: parseUsersFile(bytes.toString('utf8'), this.path, this.yaml) };
  }

  edit(change: AccountChange, expectedVersion?: string): Promise<Result<{ readonly version: string }, AccountEditError>> {
    const run = this.queue.then(() => this.editNow(change, expectedVersion));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async editNow(change: AccountChange, expectedVersion?: string): Promise<Result<{ readonly version: string }, AccountEditError>> {
    let target: string;
    let before: Buffer;
    try {
      // A symlinked file (a Kubernetes secret or config map) is written where the link points.
      target = await realpath(this.path);
      before = await readFile(target);
    } catch (e) {
      return err({ code: 'users_file_unwritable', reason: `cannot read the users file (${codeOf(e)})` });
    }
    const version = digestOf(before);
    if (expectedVersion !== undefined && expectedVersion !== version) return err({ code: 'users_file_changed' });
    const text = before.toString('utf8');
    const edited = editUsersFileText(text, this.path, change, this.yaml);
    if (!edited.ok) return edited;
    if (edited.value === text) return ok({ version });
    const parsed = parseUsersFile(edited.value, this.path, this.yaml);
    if (parsed.problems.length > 0) {
      return err({ code: 'users_file_unwritable', reason: `the edited file would not load (${parsed.problems[0]})` });
    }
    const written = await this.replace(target, before, edited.value);
    if (!written.ok) return written;
    await this.options.afterWrite?.();
    return ok({ version: digestOf(edited.value) });
  }

  /** Writes `text` beside `target` and renames it over, unless `target` no longer holds `before`. */
  private async replace(target: string, before: Buffer, text: string): Promise<Result<true, AccountEditError>> {
    const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
    let renamed = false;
    try {
      const info = await stat(target);
      const mode = info.mode & 0o7777;
      const handle = await open(temp, 'wx', mode);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.chmod(mode);
        await handle.sync();
      } finally {
        await handle.close();
      }
      // The owner stays too where this process may set it (root in a container); elsewhere it is already ours.
      await chown(temp, info.uid, info.gid).catch(() => undefined);
      const now = await readFile(target);
      if (!now.equals(before)) return err({ code: 'users_file_changed' });
      await rename(temp, target);
      renamed = true;
      await syncDirectory(dirname(target));
      return ok(true);
    } catch (e) {
      return err({ code: 'users_file_unwritable', reason: `cannot write the users file (${codeOf(e)})` });
    } finally {
      if (!renamed) await unlink(temp).catch(() => undefined);
    }
  }
}

async function syncDirectory(path: string): Promise<void> {
  // Makes the rename itself durable; not every platform lets a directory be opened for this.
  try {
    const handle = await open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // A directory that cannot be flushed still holds the renamed file.
  }
}

function codeOf(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? 'error';
}
