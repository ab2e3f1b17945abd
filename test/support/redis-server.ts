import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRedisUrl, type RedisTarget } from '../../src/config/redis-url';
import { freePort } from './net';

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      data += chunk.toString();
      if (data.includes('\r\n')) {
        socket.destroy();
        resolve(data.startsWith('+PONG'));
      }
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** A real redis-server child process on a free loopback port, without persistence, in a temp dir. */
export class RedisServer {
  private child: ChildProcess | null = null;
  private readonly dir = mkdtempSync(join(tmpdir(), 'portcullis-redis-'));

  private constructor(readonly port: number) {}

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort());
    await server.up();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Where a RedisConnection finds this server. */
  get target(): RedisTarget {
    const parsed = parseRedisUrl(this.url);
    if (!parsed.ok) throw new Error(parsed.problem);
    return parsed.target;
  }

  /** Starts (again) on the same port, empty. Resolves once it answers PING. */
  async up(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir, '--daemonize', 'no', '--loglevel', 'warning'],
      { cwd: this.dir, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    this.child = child;
    const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`))));
    for (let i = 0; i < 200; i += 1) {
      if (await Promise.race([answersPing(this.port), exited])) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('redis-server did not answer PING');
  }

  /** Kills the server at once (SIGKILL: an outage, not a clean shutdown) and waits for it to be gone. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child === null || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A real Redis Sentinel (redis-server --sentinel) watching `master` as group `name`, on a free loopback port. */
export class RedisSentinel {
  private readonly dir = mkdtempSync(join(tmpdir(), 'portcullis-sentinel-'));
  private child: ChildProcess | null = null;

  private constructor(readonly port: number) {}

  static async start(master: RedisServer, name: string): Promise<RedisSentinel> {
    const sentinel = new RedisSentinel(await freePort());
    const conf = join(sentinel.dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${sentinel.port}`,
        'bind 127.0.0.1',
        `dir ${sentinel.dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${master.port} 1`,
        `sentinel down-after-milliseconds ${name} 5000`,
        '',
      ].join('\n'),
    );
    const child = spawn('redis-server', [conf, '--sentinel', '--loglevel', 'warning'], { cwd: sentinel.dir, stdio: ['ignore', 'ignore', 'inherit'] });
    sentinel.child = child;
    const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`redis sentinel exited with ${code}`))));
    for (let i = 0; i < 200; i += 1) {
      if (await Promise.race([answersPing(sentinel.port), exited])) return sentinel;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('redis sentinel did not answer PING');
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child !== null && child.exitCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
