import * as nodePostgres from 'pg';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresDatabase } from '../../src/adapters/state/postgres/postgres-database';
import { PostgresRevokedSessions } from '../../src/adapters/state/postgres/postgres-revoked-sessions';
import { silentLogger } from '../support/loggers';
import { FixedClock } from '../support/fakes';
import { PostgresServer } from '../support/postgres-server';

const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');

/** `portcullis backup` with DATABASE_URL runs pg_dump: the built CLI against a throwaway PostgreSQL. */
describe('portcullis backup on PostgreSQL', () => {
  let pg: PostgresServer;
  let url: string;
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-pg-backup-'));
  beforeAll(async () => {
    pg = await PostgresServer.start();
    url = pg.createDatabase('backup');
    const clock = new FixedClock(Date.now());
    const database = new PostgresDatabase({ pg: nodePostgres, target: { url, ssl: null, ca: null }, logger: silentLogger, clock });
    const revoked = new PostgresRevokedSessions(database, clock);
    await database.start();
    await revoked.revoke('session-in-the-backup', clock.now() + 3_600_000);
    await database.close();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });

  it('writes an owner-only pg_dump of the records, reading the URL from DATABASE_URL_FILE, and never prints the password', () => {
    const secretFile = join(dir, 'database-url');
    writeFileSync(secretFile, `${url}\n`, { mode: 0o600 });
    const file = join(dir, 'portcullis.dump');
    const run = cli(['backup', file], { DATABASE_URL_FILE: secretFile });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`backed up PostgreSQL database backup on 127.0.0.1:${pg.port} to ${file}`);
    expect(run.stdout + run.stderr).not.toContain(pg.password);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const data = spawnSync('pg_restore', ['--data-only', '--table=revoked_sessions', '--file=-', file], { encoding: 'utf8' });
    expect(data.stdout).toContain('session-in-the-backup');
  });

  it('says what failed, without the password, when PostgreSQL refuses', () => {
    const wrong = url.replace(pg.password, 'wrong-password-here');
    const run = cli(['backup', join(dir, 'refused.dump')], { DATABASE_URL: wrong });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('pg_dump failed');
    expect(run.stderr).toContain('password authentication failed');
    expect(run.stderr).not.toContain('wrong-password-here');
  });

  it('points restore at pg_restore', () => {
    const run = cli(['restore', join(dir, 'portcullis.dump')], { DATABASE_URL: url });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('pg_restore --clean');
  });
});
