import { chmod, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';

/** What the CLI needs of a terminal; tests and hosts may supply their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** True when a person is typing (prompts then hide what they type). */
  readonly interactive: boolean;
  /** Asks on the terminal without echoing the answer. */
  promptHidden(question: string): Promise<string>;
  /** All of standard input, split into lines (for piped passwords). */
  readLines(): Promise<string[]>;
  /** A whole file as UTF-8 text (for `--password-file`); rejects when it cannot be read. */
  readFile(path: string): Promise<string>;
  /**
   * Writes a file only its owner may read (mode 0600: it holds a secret). Rejects with code
   * `EEXIST` when `path` exists and `overwrite` is false; with `overwrite` an existing file (or
   * link) is removed first, so the new one never inherits its mode.
   */
  writeSecretFile(path: string, data: Uint8Array, overwrite: boolean): Promise<void>;
  /** Makes a directory (and its parents) that only its owner may enter, when it does not exist yet. */
  makePrivateDirectory(path: string): Promise<void>;
}

/** Standard streams of the running process. */
export class ProcessIo implements CliIo {
  readonly interactive = process.stdin.isTTY === true;

  out(text: string): void {
    process.stdout.write(text);
  }

  err(text: string): void {
    process.stderr.write(text);
  }

  async readLines(): Promise<string[]> {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
  }

  readFile(path: string): Promise<string> {
    return readFile(path, 'utf8');
  }

  async writeSecretFile(path: string, data: Uint8Array, overwrite: boolean): Promise<void> {
    if (overwrite) await unlink(path).catch((e: { code?: string }) => (e.code === 'ENOENT' ? undefined : Promise.reject(e)));
    // O_EXCL: never follows a link planted at the path, never writes into a file someone else opened.
    await writeFile(path, data, { mode: 0o600, flag: 'wx' });
  }

  async makePrivateDirectory(path: string): Promise<void> {
    // mkdir returns the first directory it made; an existing one keeps its mode.
    const made = await mkdir(path, { recursive: true, mode: 0o700 });
    if (made !== undefined) await chmod(path, 0o700);
  }

  promptHidden(question: string): Promise<string> {
    const stdin = process.stdin;
    return new Promise((resolve, reject) => {
      let answer = '';
      // Echo goes off before the prompt shows, so an answer typed (or pasted) at once is never echoed.
      stdin.setRawMode(true);
      process.stderr.write(question);
      stdin.resume();
      stdin.setEncoding('utf8');
      const done = (error: Error | null): void => {
        stdin.setRawMode(false);
        stdin.pause();
        stdin.removeListener('data', onData);
        process.stderr.write('\n');
        if (error !== null) reject(error);
        else resolve(answer);
      };
      const onData = (data: string): void => {
        for (const ch of data) {
          if (ch === '\r' || ch === '\n' || ch === '\u0004') return done(null);
          if (ch === '\u0003') return done(new Error('cancelled'));
          if (ch === '\u007f' || ch === '\b') answer = answer.slice(0, -1);
          else if (ch >= ' ') answer += ch;
        }
      };
      stdin.on('data', onData);
    });
  }
}
