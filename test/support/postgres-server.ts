import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './net';
import { issueServerCertificate, makeTestCa } from './tls';

/** The directory of initdb/pg_ctl: Debian keeps them under /usr/lib/postgresql/<major>/bin, off PATH. */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root)
      .filter((d) => /^\d+$/.test(d))
      .sort((a, b) => Number(b) - Number(a));
    for (const major of majors) if (existsSync(join(root, major, 'bin', 'initdb'))) return join(root, major, 'bin');
  }
  return '';
}

/** PostgreSQL refuses to run as root: as root, the cluster belongs to (and runs as) the `postgres` user. */
function osUser(): { prefix: string[]; uid: number | null; gid: number | null } {
  if (process.getuid?.() !== 0) return { prefix: [], uid: null, gid: null };
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { prefix: ['runuser', '-u', 'postgres', '--'], uid, gid };
}

/**
 * A throwaway PostgreSQL cluster: initdb into a temp dir, `postgres` on a free 127.0.0.1 port
 * (password authentication over TCP), stopped and removed by {@link stop}. `down` and `up`
 * simulate an outage (an immediate stop is a crash: only committed transactions survive).
 */
export class PostgresServer {
  static readonly USER = 'portcullis';
  readonly password = `pw-${Math.random().toString(36).slice(2)}`;
  private readonly dir = mkdtempSync(join(tmpdir(), 'portcullis-pg-'));
  private readonly data = join(this.dir, 'data');
  private readonly bin = binDir();
  private readonly user = osUser();
  private running = false;
  private extraOptions = '';
  private readonly onExit = (): void => {
    if (this.running) this.ctl(['stop', '-m', 'immediate']);
  };

  private constructor(readonly port: number) {}

  static async start(): Promise<PostgresServer> {
    const server = new PostgresServer(await freePort());
    server.init();
    process.once('exit', server.onExit);
    await server.up();
    return server;
  }

  /** `postgres://portcullis:<password>@127.0.0.1:<port>/<database>` */
  url(database = 'postgres'): string {
    return `postgres://${PostgresServer.USER}:${this.password}@127.0.0.1:${this.port}/${database}`;
  }

  /** Creates an empty database (one per test file or scenario keeps them apart). */
  createDatabase(name: string): string {
    this.run('psql', ['-h', '127.0.0.1', '-p', String(this.port), '-U', PostgresServer.USER, '-d', 'postgres', '-qc', `CREATE DATABASE "${name}"`]);
    return this.url(name);
  }

  /** Runs SQL with psql against `database`; returns its unaligned output. */
  sql(database: string, sql: string): string {
    return this.run('psql', ['-h', '127.0.0.1', '-p', String(this.port), '-U', PostgresServer.USER, '-d', database, '-qAtc', sql]);
  }

  async up(): Promise<void> {
    this.ctl([
      'start',
      '-w',
      '-t',
      '30',
      '-l',
      join(this.dir, 'server.log'),
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1${this.extraOptions}`,
    ]);
    this.running = true;
  }

  /**
   * Restarts with TLS on (a certificate for 127.0.0.1 signed by a throwaway CA, made with openssl);
   * resolves the CA's PEM for clients to trust.
   */
  async enableTls(): Promise<string> {
    const tls = (name: string): string => join(this.dir, name);
    makeTestCa(this.dir, 'ca', 'portcullis test CA');
    issueServerCertificate(this.dir, 'ca', tls('server.key'), tls('server.pem'));
    for (const f of ['server.key', 'server.pem']) {
      chmodSync(tls(f), 0o600);
      if (this.user.uid !== null && this.user.gid !== null) chownSync(tls(f), this.user.uid, this.user.gid);
    }
    this.extraOptions = ` -c ssl=on -c ssl_cert_file=${tls('server.pem')} -c ssl_key_file=${tls('server.key')}`;
    await this.down('fast');
    await this.up();
    return readFileSync(tls('ca.pem'), 'utf8');
  }

  /** Stops the server: `immediate` is a crash (no checkpoint), `fast` a clean stop. */
  async down(mode: 'immediate' | 'fast' = 'immediate'): Promise<void> {
    this.ctl(['stop', '-w', '-m', mode]);
    this.running = false;
  }

  async stop(): Promise<void> {
    if (this.running) await this.down('fast');
    process.off('exit', this.onExit);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private init(): void {
    if (this.user.uid !== null && this.user.gid !== null) chownSync(this.dir, this.user.uid, this.user.gid);
    chmodSync(this.dir, 0o700);
    const pwfile = join(this.dir, 'pw');
    writeFileSync(pwfile, `${this.password}\n`, { mode: 0o600 });
    if (this.user.uid !== null && this.user.gid !== null) chownSync(pwfile, this.user.uid, this.user.gid);
    this.run('initdb', [
      '-D',
      this.data,
      '-U',
      PostgresServer.USER,
      `--pwfile=${pwfile}`,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
  }

  private ctl(args: string[]): void {
    this.run('pg_ctl', ['-D', this.data, ...args]);
  }

  private run(tool: string, args: string[]): string {
    const path = this.bin === '' ? tool : join(this.bin, tool);
    const argv = [...this.user.prefix, path, ...args];
    const result = spawnSync(argv[0], argv.slice(1), { cwd: this.dir, env: { ...process.env, PGPASSWORD: this.password }, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${tool} failed (${result.status}): ${result.stderr}${result.stdout}`);
    return result.stdout;
  }
}
