import Driver from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashOf, TEST_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { runCli } from '../../support/process';

/** `portcullis passkeys enrol <name>` (issue 16): the link, and every way it refuses. */
describe('portcullis passkeys enrol', () => {
  const data = tempDataDir();
  const usersFile = join(data.dir, 'users.yaml');
  writeFileSync(usersFile, `users:\n  - username: dora\n    passkey_only: true\n  - username: alice\n    password: "${hashOf('pw')}"\n`);
  const env = { APP_URL: 'https://auth.example.test', SECRET: TEST_SECRET, USERS_FILE: usersFile, DATA_DIR: join(data.dir, 'data') };
  afterAll(() => data.remove());

  it('prints a single-use link with the code in the fragment, and the store holds no trace of the code itself', async () => {
    const run = await runCli(['passkeys', 'enrol', 'dora'], { env });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const url = run.stdout.split('\n').find((l) => l.startsWith('https://'));
    expect(url).toMatch(/^https:\/\/auth\.example\.test\/enrol#[A-Za-z0-9_-]{48}$/);
    expect(run.stdout).toMatch(/valid once until \d{4}-\d\d-\d\dT/);
    const code = String(url).split('#')[1];
    const db = new Driver(join(data.dir, 'data', 'portcullis.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT code, username FROM passkey_enrolment_links').all() as { code: string; username: string }[];
      expect(rows).toHaveLength(1);
      expect(rows[0].username).toBe('dora');
      expect(rows[0].code).not.toContain(code);
    } finally {
      db.close();
    }
  });

  it('refuses an account with a password, an unknown one, and wrong usage', async () => {
    expect(await runCli(['passkeys', 'enrol', 'alice'], { env })).toMatchObject({ code: 1, stderr: expect.stringContaining('has a password') });
    expect(await runCli(['passkeys', 'enrol', 'nobody'], { env })).toMatchObject({ code: 1, stderr: expect.stringContaining('no account nobody') });
    expect((await runCli(['passkeys', 'enrol'], { env })).code).toBe(2);
    expect((await runCli(['passkeys', 'forget', 'dora'], { env })).code).toBe(2);
    expect((await runCli(['passkeys', '--help'], { env })).stdout).toContain('Usage: portcullis passkeys enrol');
    // Five processes, each starting Node: seconds on a loaded machine.
  }, 30_000);

  it('refuses without a durable store: a link in memory would never reach the gateway', async () => {
    const noStore: Record<string, string> = { ...env };
    delete noStore.DATA_DIR;
    const run = await runCli(['passkeys', 'enrol', 'dora'], { env: noStore });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no durable store');
  });
});
