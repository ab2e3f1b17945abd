import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback port that was free a moment ago (the OS picks it; the race with other jobs is tiny). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  /** Where its stdout and stderr go, for the failure message. */
  readonly logFile: string;
  stop(): Promise<void>;
}

/** Starts a program as a child (never daemonised) with its output in `logFile`. */
export function startChild(name: string, command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; logFile: string }): Child {
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    process: child,
    logFile: options.logFile,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      log.end();
    },
  };
}

/** Resolves once `http://127.0.0.1:port` answers anything with `host`, or fails when the child dies or time runs out. */
export async function waitForHttp(child: Child, port: number, host: string, timeoutMs = 20000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.process.exitCode !== null) throw new Error(`${child.name} exited with ${child.process.exitCode}; see ${child.logFile}`);
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
    if (Date.now() > deadline) throw new Error(`${child.name} did not answer on port ${port} in time; see ${child.logFile}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A plain HTTP request to 127.0.0.1 with any Host header (fetch refuses to set Host). */
export function rawRequest(
  port: number,
  host: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}
