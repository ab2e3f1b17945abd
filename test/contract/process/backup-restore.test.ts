import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../support/net';
import { hashOf, TEST_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { type Child, runCli, startGatewayProcess } from '../../support/process';

/** `portcullis backup` and `portcullis restore` as processes, against a running (then stopped) gateway process. */
const APP_URL = 'https://auth.example.test';

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env });

async function start(dataDir: string): Promise<{ gateway: Child; url: string }> {
  const port = await freePort();
  const gateway = startGatewayProcess({
    APP_URL,
    SECRET: TEST_SECRET,
    USERS: `alice:${hashOf('alice-pw')}`,
    PORT: String(port),
    ADDRESS: '127.0.0.1',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
  });
  await gateway.waitForLine('portcullis listening');
  return { gateway, url: `http://127.0.0.1:${port}` };
}

async function login(url: string): Promise<string> {
  const res = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'alice', password: 'alice-pw' }),
  });
  expect(res.status).toBe(200);
  return res.headers.getSetCookie()[0].split(';')[0];
}

async function forwardAuth(url: string, cookie: string): Promise<number> {
  const res = await fetch(`${url}/api/auth/traefik`, {
    headers: { cookie, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test', 'x-forwarded-uri': '/' },
  });
  return res.status;
}

jest.setTimeout(60_000);

describe('portcullis backup and restore', () => {
  const tmp = tempDataDir('portcullis-backup');
  const live = join(tmp.dir, 'live');
  const backup = join(tmp.dir, 'backup.db');
  let running: Child | null = null;
  afterEach(async () => {
    running?.kill();
    await running?.exited;
    running = null;
  });
  afterAll(() => tmp.remove());

  it('copies the database while the gateway runs and keeps serving; the copy restored elsewhere still refuses a logged-out cookie', async () => {
    const { gateway, url } = await start(live);
    running = gateway;
    const cookie = await login(url);
    expect((await fetch(`${url}/api/logout`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    // Logouts keep arriving while the copy is made. The logins come first, one at a time: logins
    // of one account at once would meet its lock (guesses are counted while they are checked).
    const cookies: string[] = [];
    for (let i = 0; i < 20; i += 1) cookies.push(await login(url));
    const busy = Promise.all(
      cookies.map(async (c) => {
        return (await fetch(`${url}/api/logout`, { method: 'POST', headers: { cookie: c, 'content-type': 'application/json' }, body: '{}' })).status;
      }),
    );
    const run = await cli(['backup', backup, '--data-dir', live]);
    expect(await busy).toEqual(Array(20).fill(200));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^backed up .*portcullis\\.db to ${backup} \\(\\d+ bytes, schema version \\d+\\)\\n$`));
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    expect(await forwardAuth(url, cookie)).toBe(401);

    // A second gateway on a fresh directory restored from the copy.
    const other = join(tmp.dir, 'other');
    mkdirSync(other, { mode: 0o700 });
    const restored = await cli(['restore', backup], { DATA_DIR: other });
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(/^restored .* \(schema version \d+\)\n$/);
    const second = await start(other);
    try {
      expect(await forwardAuth(second.url, cookie)).toBe(401);
      expect(await forwardAuth(second.url, await login(second.url))).toBe(200);
    } finally {
      second.gateway.kill();
      await second.gateway.exited;
    }
  });

  it('refuses to restore while the gateway runs, and keeps the database it would replace after a restore', async () => {
    const { gateway } = await start(live);
    running = gateway;
    const refused = await cli(['restore', backup, '--data-dir', live]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^portcullis: .*in use by another Portcullis process.*: stop the gateway before a restore\n$/);
    gateway.process.kill('SIGTERM');
    await gateway.exited;
    running = null;
    const done = await cli(['restore', backup, '--data-dir', live]);
    expect(done.code).toBe(0);
    expect(readdirSync(live).some((f) => f.startsWith('portcullis.db.replaced-'))).toBe(true);
  });

  it('refuses to overwrite a file, and to restore a file that is not a backup, in one line each', async () => {
    const overwrite = await cli(['backup', backup, '--data-dir', live]);
    expect(overwrite.code).toBe(1);
    expect(overwrite.stderr).toBe(`portcullis: ${backup} already exists; give the name of a new file\n`);
    const junk = join(tmp.dir, 'junk.db');
    writeFileSync(junk, 'not a database '.repeat(200));
    const bad = await cli(['restore', junk, '--data-dir', live]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(`portcullis: ${junk} is not a readable Portcullis database (SQLITE_NOTADB)\n`);
    expect(existsSync(join(live, 'portcullis.db'))).toBe(true);
  });
});
