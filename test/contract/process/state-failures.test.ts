import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Driver from 'better-sqlite3';
import { freePort } from '../../support/net';
import { hashOf, TEST_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { smallDisk, writeGarbage } from '../../support/small-disk';
import { built, type Child, runNode, startGatewayProcess } from '../../support/process';

/** What the gateway process does when its database cannot be used: at start-up, and when the disk fills up while it runs. */
const APP_URL = 'https://auth.example.test';
const USERS = `alice:${hashOf('alice-pw')}`;

async function envFor(dataDir: string, extra: Record<string, string> = {}): Promise<{ env: Record<string, string>; url: string }> {
  const port = await freePort();
  return {
    env: { APP_URL, SECRET: TEST_SECRET, USERS, PORT: String(port), ADDRESS: '127.0.0.1', LOG_LEVEL: 'info', DATA_DIR: dataDir, ...extra },
    url: `http://127.0.0.1:${port}`,
  };
}

/** Expects start-up to stop with exit code 2 and exactly one problem line matching `problem`, no stack trace. */
async function expectRefusedStart(gateway: Child, problem: RegExp): Promise<void> {
  expect(await gateway.exited).toBe(2);
  expect(gateway.stderr).toMatch(/^Portcullis cannot start; fix the database:\n {2}- .+\n$/);
  expect(gateway.stderr).toMatch(problem);
  expect(gateway.stderr).not.toMatch(/\n\s+at /);
  expect(gateway.stdout).not.toContain('portcullis listening');
}

describe('a database the gateway cannot use at start-up', () => {
  const data = tempDataDir();
  let running: Child | null = null;
  afterEach(() => running?.kill());
  afterAll(() => data.remove());

  it('refuses a data directory it may not write, naming it', async () => {
    const dir = join(data.dir, 'read-only');
    mkdirSync(dir, { mode: 0o555 });
    chmodSync(dir, 0o555);
    // root writes anywhere: run the gateway as nobody then (the directory stays root's, 0555).
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chmodSync(data.dir, 0o755);
    const { env } = await envFor(dir);
    running = startGatewayProcess(env, asRoot ? { uid: 65534, gid: 65534 } : {});
    await expectRefusedStart(running, new RegExp(`the data directory ${dir} is not writable \\(EACCES\\); set DATA_DIR to a directory this user may write`));
  }, 20_000);

  it('refuses a file that is not a database', async () => {
    const dir = join(data.dir, 'corrupt');
    mkdirSync(dir, { mode: 0o700 });
    writeGarbage(join(dir, 'portcullis.db'));
    const { env } = await envFor(dir);
    running = startGatewayProcess(env);
    await expectRefusedStart(running, /portcullis\.db is not a readable Portcullis database \(SQLITE_NOTADB\); restore a backup or move the file away/);
  }, 20_000);

  it('refuses a data directory another gateway is using (one gateway per DATA_DIR)', async () => {
    const dir = join(data.dir, 'shared');
    const first = await envFor(dir);
    const owner = startGatewayProcess(first.env);
    try {
      await owner.waitForLine('portcullis listening');
      const second = await envFor(dir);
      running = startGatewayProcess(second.env);
      await expectRefusedStart(
        running,
        /is in use by another Portcullis process; one gateway per DATA_DIR \(several replicas share DATABASE_URL or REDIS_URL instead\)/,
      );
    } finally {
      owner.kill();
      await owner.exited;
    }
  }, 20_000);

  it('refuses a database written by a newer Portcullis', async () => {
    const dir = join(data.dir, 'newer');
    mkdirSync(dir, { mode: 0o700 });
    const db = new Driver(join(dir, 'portcullis.db'));
    db.pragma('user_version = 99');
    db.close();
    const { env } = await envFor(dir);
    running = startGatewayProcess(env);
    await expectRefusedStart(running, /has schema version 99, newer than this Portcullis knows \(\d+\)/);
  }, 20_000);
});

describe('the demo', () => {
  it('keeps its state in a throwaway directory, says so, and removes it when it stops', async () => {
    const port = await freePort();
    const child = runNode(built('src/main.js'), [], { PORT: String(port), ADDRESS: '127.0.0.1' });
    try {
      const [, dir] = await child.waitFor(/kept in a throwaway directory, removed on exit: (\S+)/);
      await child.waitFor(/portcullis listening/);
      expect(existsSync(join(dir, 'portcullis.db'))).toBe(true);
      await child.stop();
      expect(existsSync(dir)).toBe(false);
    } finally {
      await child.stop();
    }
  }, 30_000);
});

describe('a disk that fills up while the gateway runs', () => {
  const disk = smallDisk();
  let running: Child | null = null;
  afterAll(async () => {
    running?.kill();
    await running?.exited;
    disk.remove();
  });

  it('fails the logouts that cannot be stored with 503 and a log line, stays up, and recovers when space returns', async () => {
    const { env, url } = await envFor(disk.dir);
    running = startGatewayProcess(env, { wrap: (argv) => disk.wrap(argv) });
    await running.waitForLine('portcullis listening');
    const pid = running.process.pid!;
    const login = async (): Promise<string> => {
      const res = await fetch(`${url}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'alice', password: 'alice-pw' }),
      });
      expect(res.status).toBe(200);
      return res.headers.getSetCookie()[0].split(';')[0];
    };
    const logout = (cookie: string): Promise<Response> =>
      fetch(`${url}/api/logout`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{}' });
    const auth = async (cookie: string): Promise<number> =>
      (
        await fetch(`${url}/api/auth/traefik`, {
          headers: { cookie, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test', 'x-forwarded-uri': '/' },
        })
      ).status;

    const cookies: string[] = [];
    for (let i = 0; i < 30; i += 1) cookies.push(await login());
    disk.fill(pid);
    // Enough writes to need new space (the WAL grows by a page or more per commit).
    let refused: Response | null = null;
    for (const cookie of cookies.slice(1)) {
      const res = await logout(cookie);
      if (res.status === 503) {
        refused = res;
        break;
      }
      expect(res.status).toBe(200);
    }
    expect(refused).not.toBeNull();
    expect(await refused!.json()).toEqual({ status: 503, code: 'store_unavailable', message: 'Service unavailable, try again later' });
    expect(refused!.headers.getSetCookie()).toEqual([]);
    const failing = await logout(cookies[0]);
    expect(failing.status).toBe(503);
    // Still up: forward auth answers from memory, the health check is fine, the session that was not logged out still passes.
    expect((await fetch(`${url}/api/healthcheck`)).status).toBe(200);
    expect(await auth(cookies[0])).toBe(200);
    await running.waitForLine('database write failed');

    disk.free(pid);
    expect((await logout(cookies[0])).status).toBe(200);
    expect(await auth(cookies[0])).toBe(401);
    await running.waitForLine('database writes work again');
    expect(readdirSync(disk.dir)).toContain('portcullis.db');
  }, 30_000);
});
