import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { tempDataDir } from './data-dir';

const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');

/** The built gateway (`npm run build`) as a child process, with its stdout lines at hand. */
export class GatewayProcess {
  readonly lines: string[] = [];
  /** What the process wrote on stderr (start-up errors, the demo banner). */
  stderr = '';
  private readonly waiters: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        this.lines.push(line);
        for (const w of [...this.waiters]) {
          if (w.match(line)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(line);
          }
        }
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
      process.stderr.write(chunk);
    });
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /**
   * Starts `node dist/src/main.js` with exactly `env` (plus PATH). Without DATA_DIR or REDIS_URL the
   * gateway would keep its database in ./data of the working directory: it gets a temp dir of its
   * own instead, removed when it exits.
   */
  static start(env: Record<string, string>, options: { wrap?: (argv: string[]) => [string, string[]]; uid?: number; gid?: number } = {}): GatewayProcess {
    const data = env.DATA_DIR === undefined && env.REDIS_URL === undefined ? tempDataDir() : null;
    const argv = [process.execPath, MAIN];
    const [command, args] = options.wrap?.(argv) ?? [argv[0], argv.slice(1)];
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH ?? '', ...(data === null ? {} : { DATA_DIR: data.dir }), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      uid: options.uid,
      gid: options.gid,
    });
    const gateway = new GatewayProcess(child);
    if (data !== null) child.once('exit', () => data.remove());
    return gateway;
  }

  /** Resolves the first stdout line (past or future) that contains `text`; rejects after `ms`. */
  waitFor(text: string, ms = 15_000): Promise<string> {
    const seen = this.lines.find((l) => l.includes(text));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no log line with ${text}; got:\n${this.lines.join('\n')}`)), ms);
      this.waiters.push({
        match: (l) => l.includes(text),
        resolve: (l) => {
          clearTimeout(timer);
          resolve(l);
        },
      });
    });
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}
