import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');

/** The built gateway (`npm run build`) as a child process, with its stdout lines at hand. */
export class GatewayProcess {
  readonly lines: string[] = [];
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
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static start(env: Record<string, string>): GatewayProcess {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    return new GatewayProcess(child);
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
