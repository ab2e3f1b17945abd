import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

/** A built file under dist/; `npm test` builds first (pretest), so its absence is a clear setup error. */
export function built(relative: string): string {
  const path = join(ROOT, 'dist', relative);
  if (!existsSync(path)) throw new Error(`${path} is missing: run "npm run build" (npm test does it in pretest)`);
  return path;
}

/** A loopback port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Child {
  readonly process: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves the exit code (or the signal's name). */
  readonly exited: Promise<number | string>;
  /** Resolves once stdout or stderr matches `pattern`; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Stops the process (by its pid) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Runs `node <script> ...args` with exactly `env` (plus PATH), never the test runner's environment. */
export function runNode(script: string, args: string[], env: Record<string, string>): Child {
  const proc = spawn(process.execPath, [script, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const waiters: Array<{ pattern: RegExp; resolve: (m: RegExpMatchArray) => void; reject: (e: Error) => void }> = [];
  const child: Child = {
    process: proc,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'))),
    waitFor(pattern) {
      const now = (child.stdout + child.stderr).match(pattern);
      if (now !== null) return Promise.resolve(now);
      return new Promise((resolve, reject) => waiters.push({ pattern, resolve, reject }));
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await child.exited;
    },
  };
  const check = (): void => {
    for (const w of [...waiters]) {
      const m = (child.stdout + child.stderr).match(w.pattern);
      if (m !== null) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  proc.stdout?.on('data', (d: Buffer) => {
    child.stdout += d.toString('utf8');
    check();
  });
  proc.stderr?.on('data', (d: Buffer) => {
    child.stderr += d.toString('utf8');
    check();
  });
  proc.once('exit', () => {
    for (const w of waiters.splice(0)) w.reject(new Error(`process exited before printing ${w.pattern}:\n${child.stdout}\n${child.stderr}`));
  });
  return child;
}
