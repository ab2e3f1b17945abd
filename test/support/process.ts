import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { TEST_SECRET } from './credentials';
import { tempDataDir } from './data-dir';

export const ROOT = join(__dirname, '..', '..');

/** A built file under dist/; `npm test` builds first (pretest), so its absence is a clear setup error. */
export function built(relative: string): string {
  const path = join(ROOT, 'dist', relative);
  if (!existsSync(path)) throw new Error(`${path} is missing: run "npm run build" (npm test does it in pretest)`);
  return path;
}

/** The built gateway's entry point, as `npm start` and the `portcullis` command run it. */
export const gatewayMain = (): string => built(join('src', 'main.js'));

export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  /** Everything it wrote so far. */
  stdout: string;
  stderr: string;
  /** Where its stdout and stderr are copied as well, for a failure message; null when kept in memory only. */
  readonly logFile: string | null;
  /** Resolves the exit code (or the signal's name). */
  readonly exited: Promise<number | string>;
  /** Resolves once it exited and its output streams are drained. */
  readonly closed: Promise<void>;
  /** Resolves once stdout or stderr matches `pattern`; rejects if the process exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves the first whole output line (past or future) that contains `text`. */
  waitForLine(text: string, timeoutMs?: number): Promise<string>;
  /** SIGTERM, SIGKILL after five seconds; resolves once it is gone. */
  stop(): Promise<void>;
  /** SIGKILL at once (an outage, or cleanup after a failed test); does not wait. */
  kill(): void;
}

export interface ChildOptions {
  /** Exactly this environment plus PATH; never the test runner's environment unless passed on purpose. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** Copies stdout and stderr into this file (appending). */
  readonly logFile?: string;
  /** Written to its stdin, which is then closed. */
  readonly input?: string;
  /** Runs it as this user and group (tests run as root in CI containers). */
  readonly uid?: number;
  readonly gid?: number;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Each stream on its own first, so a line pattern never matches across the two; then both together. */
const matchOutput = (child: Child, pattern: RegExp): RegExpMatchArray | null =>
  child.stdout.match(pattern) ?? child.stderr.match(pattern) ?? (child.stdout + child.stderr).match(pattern);

/** Starts a program as a child process (never daemonised) with its output at hand. */
export function startChild(name: string, command: string, args: readonly string[], options: ChildOptions = {}): Child {
  const proc = spawn(command, [...args], {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    uid: options.uid,
    gid: options.gid,
  });
  const log = options.logFile === undefined ? null : createWriteStream(options.logFile, { flags: 'a' });
  const waiters: Array<{ pattern: RegExp; resolve: (m: RegExpMatchArray) => void; reject: (e: Error) => void }> = [];
  const output = (): string => `${child.stdout}\n${child.stderr}`;
  const describe = (): string => (log === null ? output() : `see ${options.logFile}`);
  const exited = new Promise<number | string>((resolve) => {
    proc.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    proc.once('error', (error) => {
      child.stderr += String(error);
      resolve('spawn failed');
    });
  });
  const closed = new Promise<void>((resolve) => proc.once('close', () => resolve()));
  const child: Child = {
    name,
    process: proc,
    stdout: '',
    stderr: '',
    logFile: options.logFile ?? null,
    exited,
    closed,
    waitFor(pattern, timeoutMs = 15_000) {
      const now = matchOutput(child, pattern);
      if (now !== null) return Promise.resolve(now);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`${name} printed nothing matching ${pattern} in ${timeoutMs} ms; ${describe()}`));
        }, timeoutMs);
        const waiter = {
          pattern,
          resolve: (m: RegExpMatchArray) => {
            clearTimeout(timer);
            resolve(m);
          },
          reject: (e: Error) => {
            clearTimeout(timer);
            reject(e);
          },
        };
        waiters.push(waiter);
      });
    },
    async waitForLine(text, timeoutMs) {
      const m = await child.waitFor(new RegExp(`^(.*${escapeRegExp(text)}.*)\\r?\\n`, 'm'), timeoutMs);
      return m[1];
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      await exited;
      log?.end();
    },
    kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    },
  };
  const check = (): void => {
    for (const w of [...waiters]) {
      const m = matchOutput(child, w.pattern);
      if (m !== null) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  proc.stdout?.on('data', (d: Buffer) => {
    child.stdout += d.toString('utf8');
    log?.write(d);
    check();
  });
  proc.stderr?.on('data', (d: Buffer) => {
    child.stderr += d.toString('utf8');
    log?.write(d);
    check();
  });
  void exited.then(() => {
    for (const w of waiters.splice(0)) w.reject(new Error(`${name} exited before printing ${w.pattern}; ${describe()}`));
  });
  if (options.input !== undefined) proc.stdin?.end(options.input);
  return child;
}

/**
 * Runs `node <script> ...args` with exactly `env` (plus PATH), in a throwaway working directory
 * (removed when it exits), so whatever it writes relative to it (the gateway's ./data without
 * DATA_DIR) never lands in the checkout.
 */
export function runNode(script: string, args: readonly string[], env: Record<string, string>): Child {
  const cwd = tempDataDir('portcullis-cwd');
  const child = startChild(script, process.execPath, [script, ...args], { env, cwd: cwd.dir });
  void child.exited.then(() => cwd.remove());
  return child;
}

/**
 * The built gateway (`dist/src/main.js`) as its own process, as an operator starts it: `env` on top of
 * the test defaults (loopback address, {@link TEST_SECRET}). Pass `PORT` (a {@link freePort}) to reach it.
 * Without DATA_DIR or REDIS_URL the gateway would keep its database in ./data of the working
 * directory: it gets a temp dir of its own instead, removed when it exits.
 */
export function startGatewayProcess(
  env: Record<string, string | undefined>,
  options: Omit<ChildOptions, 'env'> & { args?: readonly string[]; wrap?: (argv: string[]) => [string, string[]] } = {},
): Child {
  const data = env.DATA_DIR === undefined && env.REDIS_URL === undefined ? tempDataDir() : null;
  // `wrap` runs the gateway under another program (a small-disk mount, say): it gets the whole command line.
  const argv = [process.execPath, gatewayMain(), ...(options.args ?? [])];
  const [command, args] = options.wrap?.(argv) ?? [argv[0], argv.slice(1)];
  const child = startChild('gateway', command, args, {
    ...options,
    env: { APP_URL: 'http://localhost', SECRET: TEST_SECRET, ADDRESS: '127.0.0.1', ...(data === null ? {} : { DATA_DIR: data.dir }), ...env },
  });
  if (data !== null) void child.exited.then(() => data.remove());
  return child;
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built CLI (`portcullis <args>`) to its end, `input` on a piped (non-terminal) stdin, with exactly `env` plus PATH. */
export async function runCli(args: readonly string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  const child = startChild('portcullis', process.execPath, [gatewayMain(), ...args], { env: options.env ?? {}, input: options.input ?? '' });
  const exit = await child.exited;
  await child.closed;
  return { code: typeof exit === 'number' ? exit : null, stdout: child.stdout, stderr: child.stderr };
}

/** Resolves once `http://127.0.0.1:port` answers anything with `host`, or fails when the child dies or time runs out. */
export async function waitForHttp(child: Child, port: number, host: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.process.exitCode !== null)
      throw new Error(`${child.name} exited with ${child.process.exitCode}; ${child.logFile === null ? child.stderr : `see ${child.logFile}`}`);
    const up = await new Promise<boolean>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/', method: 'HEAD', headers: { host }, timeout: 1000 }, (res) => {
        res.resume();
        resolve(true);
      });
      req.on('error', () => resolve(false));
      req.on('timeout', () => req.destroy());
      req.end();
    });
    if (up) return;
    if (Date.now() > deadline)
      throw new Error(`${child.name} did not answer on port ${port} in time; ${child.logFile === null ? child.stderr : `see ${child.logFile}`}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
