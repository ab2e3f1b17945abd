import { spawn } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { DatabaseToolError } from '../sqlite/sqlite-backup';

/** What `portcullis backup` needs to reach PostgreSQL (from DATABASE_URL or _FILE, DATABASE_SSL, DATABASE_CA_FILE). */
export interface PostgresBackupTarget {
  readonly url: string;
  readonly ssl: string | null;
  readonly caFile: string | null;
}

/**
 * libpq's environment for `target`: the password travels in PGPASSWORD (the child's environment,
 * readable only by this user), never on the command line, where `ps` would show it to everyone.
 */
function libpqEnvironment(target: PostgresBackupTarget): NodeJS.ProcessEnv {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    throw new DatabaseToolError('DATABASE_URL must look like postgres://user:password@host:5432/database');
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    PGHOST: decodeURIComponent(url.hostname).replace(/^\[(.*)\]$/, '$1'),
    PGPORT: url.port === '' ? '5432' : url.port,
    PGDATABASE: decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username),
    PGUSER: decodeURIComponent(url.username),
  };
  if (url.password !== '') env.PGPASSWORD = decodeURIComponent(url.password);
  const sslmode = target.ssl ?? url.searchParams.get('sslmode');
  if (sslmode !== null) env.PGSSLMODE = sslmode;
  if (target.caFile !== null) env.PGSSLROOTCERT = target.caFile;
  return env;
}

/**
 * `portcullis backup <file>` with DATABASE_URL: runs `pg_dump --format=custom` (one consistent
 * snapshot, taken while the gateways run; restore with `pg_restore --clean --dbname=...`). The file
 * holds revocations: created owner-only (umask 077 for the child).
 */
export async function backupPostgres(target: PostgresBackupTarget, file: string): Promise<string> {
  const out = resolve(file);
  if (existsSync(out)) throw new DatabaseToolError(`${out} already exists; give the name of a new file`);
  const env = libpqEnvironment(target);
  const previous = process.umask(0o077);
  let code: number | null;
  let stderr = '';
  try {
    code = await new Promise<number | null>((resolvePromise, reject) => {
      const child = spawn('pg_dump', ['--format=custom', '--no-owner', `--file=${out}`], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.once('error', reject);
      child.once('exit', resolvePromise);
    });
  } catch (e) {
    rmSync(out, { force: true });
    const missing = (e as { code?: string }).code === 'ENOENT';
    throw new DatabaseToolError(
      missing ? 'pg_dump is not installed (Debian: postgresql-client); or run pg_dump --format=custom yourself, see docs/operations.md' : 'cannot run pg_dump',
    );
  } finally {
    process.umask(previous);
  }
  if (code !== 0) {
    rmSync(out, { force: true });
    // pg_dump's own first line says what failed (it names host and user, never the password).
    const reason =
      stderr
        .split('\n')
        .find((l) => l.trim() !== '')
        ?.replace(/^pg_dump: (error: )?/, '') ?? `exit code ${code}`;
    throw new DatabaseToolError(`pg_dump failed: ${reason}`);
  }
  return `backed up PostgreSQL database ${env.PGDATABASE} on ${env.PGHOST}:${env.PGPORT} to ${out} (${statSync(out).size} bytes, pg_dump custom format; restore with pg_restore)`;
}
