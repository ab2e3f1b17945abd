import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openTokensAdmin } from '../../../src/cli/admin/tokens-admin';
import type { CliIo } from '../../../src/cli/cli-io';
import { tokensCommand, type TokensAdmin } from '../../../src/cli/commands/tokens-command';
import { isTokenShaped } from '../../../src/domain/access-token';
import { hashOf, TEST_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { askForwardAuth, forwardedFor } from '../../support/http';
import { runCli } from '../../support/process';
import { startGateway } from '../../support/server';

const data = tempDataDir('portcullis-tokens');
const usersFile = join(data.dir, 'users.yaml');
const rulesFile = join(data.dir, 'access.yaml');
writeFileSync(
  usersFile,
  `users:\n  - username: backup-bot\n    service: true\n    groups: [backups]\n  - username: deploy-bot\n    service: true\n  - username: alice\n    password: "${hashOf('pw')}"\n`,
);
writeFileSync(rulesFile, 'default_policy: allow_authenticated\napps:\n  grafana:\n    domain: [grafana.example.test]\n');
const env = { APP_URL: 'https://auth.example.test', SECRET: TEST_SECRET, USERS_FILE: usersFile, ACCESS_CONFIG: rulesFile, DATA_DIR: join(data.dir, 'data') };
afterAll(() => data.remove());

/** `portcullis tokens` (issue 32) as a process: the token printed once, and every way it refuses. */
describe('portcullis tokens, as a process', () => {
  it('prints a new token alone on stdout (once), describing it on stderr, for a service account and a person', async () => {
    const run = await runCli(['tokens', 'create', 'backup-bot', '--name', 'nightly backup', '--app', 'grafana', '--expires', '30'], { env });
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines).toHaveLength(2);
    expect(isTokenShaped(lines[0])).toBe(true);
    expect(run.stderr).toMatch(
      /^# token \S+ for backup-bot, shown once: \S+ {2}"nightly backup" {2}apps: grafana {2}created \d{4}-.* {2}last used never {2}expires \d{4}-/,
    );
    expect(run.stderr).not.toContain(lines[0]);
    const person = await runCli(['tokens', 'create', 'ALICE', '--name=laptop script'], { env });
    expect(person.code).toBe(0);
    expect(person.stderr).toContain('for alice, shown once');
  }, 30_000);

  it('refuses an unknown account, an unknown application, a bad expiry, TOKENS=false, and wrong usage', async () => {
    expect(await runCli(['tokens', 'create', 'nobody', '--name', 'x'], { env })).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'portcullis: no account nobody in the user store (or it is disabled)\n',
    });
    expect(await runCli(['tokens', 'create', 'backup-bot', '--name', 'x', '--app', 'wiki'], { env })).toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/^portcullis: invalid --app: .*each --app names an application of the access rules/),
    });
    expect(await runCli(['tokens', 'create', 'backup-bot', '--name', 'x', '--expires', '366'], { env })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('invalid --expires'),
    });
    expect(await runCli(['tokens', 'list', 'backup-bot'], { env: { ...env, TOKENS: 'false' } })).toMatchObject({
      code: 1,
      stderr: 'portcullis: TOKENS is off: turn access tokens on first\n',
    });
    for (const args of [
      ['tokens', 'create', 'backup-bot'],
      ['tokens', 'create', 'backup-bot', '--name'],
      ['tokens', 'create', 'backup-bot', '--name', 'x', '--expires', 'soon'],
      ['tokens', 'list'],
      ['tokens', 'revoke', 'backup-bot'],
      ['tokens', 'forget', 'backup-bot'],
    ])
      expect(await runCli(args, { env })).toMatchObject({ code: 2, stderr: expect.stringContaining('(see portcullis tokens --help)') });
    expect((await runCli(['tokens', '--help'], { env })).stdout).toContain('Usage: portcullis tokens create <name> --name TEXT');
    expect((await runCli(['--help'], { env })).stdout).toContain('tokens create <name> --name TEXT');
  }, 90_000);

  it('keeps tokens in the store: made by one process, listed and revoked by the next, and a gateway started after honours both', async () => {
    const made = await runCli(['tokens', 'create', 'backup-bot', '--name', 'kept', '--app', 'grafana'], { env });
    const token = made.stdout.trim();
    const id = String(made.stderr.split(' ')[2]);
    expect((await runCli(['tokens', 'list', 'backup-bot'], { env })).stdout).toContain(`${id}  "kept"  apps: grafana`);
    const ask = async (): Promise<Response> => {
      const gw = await startGateway(env);
      try {
        return await askForwardAuth(gw, 'traefik', {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...forwardedFor('https://grafana.example.test/'),
        });
      } finally {
        await gw.close();
      }
    };
    const passed = await ask();
    expect(passed.status).toBe(200);
    expect(passed.headers.get('remote-user')).toBe('backup-bot');
    expect(passed.headers.get('remote-groups')).toBe('backups');
    expect(await runCli(['tokens', 'revoke', 'backup-bot', id], { env })).toMatchObject({ code: 0, stdout: `revoked token ${id} of backup-bot\n` });
    expect((await runCli(['tokens', 'list', 'backup-bot'], { env })).stdout).toMatch(new RegExp(`^${id} .* {2}revoked \\d{4}-`, 'm'));
    expect((await ask()).status).toBe(401);
  }, 60_000);
});

/** The same command on one opened store, in this process: listing and revoking. */
describe('portcullis tokens list and revoke', () => {
  let admin: TokensAdmin;
  beforeAll(async () => {
    admin = await openTokensAdmin(env, null);
  });
  afterAll(() => admin.close());

  const run = async (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
    let out = '';
    let err = '';
    const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t), interactive: false } as unknown as CliIo;
    const code = await tokensCommand(args, io, async () => ({ ...admin, close: async () => undefined }));
    return { code, out, err };
  };

  it('lists an account’s tokens without their secrets, revokes one, and refuses an id that is not a live token of it', async () => {
    expect(await run('list', 'deploy-bot')).toEqual({ code: 0, out: 'deploy-bot has no token\n', err: '' });
    const made = await run('create', 'deploy-bot', '--name', 'ci', '--app', 'grafana');
    const token = made.out.trim();
    const id = made.err.split(' ')[2];
    const listed = await run('list', 'deploy-bot');
    expect(listed.out).toMatch(new RegExp(`^${id} {2}"ci" {2}apps: grafana {2}created \\d{4}-\\S+ {2}last used never {2}expires \\d{4}-\\S+\\n$`));
    expect(listed.out).not.toContain(token);
    expect(await run('revoke', 'alice', id)).toEqual({ code: 1, out: '', err: `portcullis: alice has no live token ${id}\n` });
    expect(await run('revoke', 'deploy-bot', id)).toEqual({ code: 0, out: `revoked token ${id} of deploy-bot\n`, err: '' });
    expect((await run('list', 'deploy-bot')).out).toMatch(/ {2}revoked \d{4}-\S+\n$/);
    expect(await run('revoke', 'deploy-bot', id)).toMatchObject({ code: 1, err: `portcullis: deploy-bot has no live token ${id}\n` });
  });
});
