import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'otplib';
import { envOf, forwardAuth, post, sessionCookie } from '../../support/imported-gateway';
import { freePort } from '../../support/net';
import { runCli, startGatewayProcess, type Child } from '../../support/process';

jest.setTimeout(90_000);

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'import', 'tinyauth');

/** After `portcullis import tinyauth`, the gateway starts on the written files with tinyauth's accounts and apps. */
describe('portcullis import tinyauth, then the gateway on its files', () => {
  let root: string;
  let gateway: Child | null = null;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'portcullis-import-'));
  });
  afterEach(async () => {
    if (gateway !== null) {
      gateway.process.kill('SIGTERM');
      await gateway.exited;
      gateway = null;
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('imports the environment, labels and YAML apps; bob logs in as before and the apps decide as in tinyauth', async () => {
    const out = join(root, 'out');
    const f = (name: string): string => join(FIXTURES, name);
    const run = await runCli([
      'import',
      'tinyauth',
      '--env',
      f('tinyauth.env'),
      '--compose',
      f('docker-compose.yml'),
      '--config',
      f('tinyauth.yml'),
      '--check',
      f('requests.txt'),
      '--out',
      out,
    ]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toContain('USERS: carried over unchanged');
    expect(run.stdout).not.toContain('WIDER');
    expect(run.stdout).not.toContain('viewer-password');
    expect(readFileSync(join(out, 'basicauth-grafana'), 'utf8')).toBe('viewer-password\n');
    expect(statSync(join(out, 'portcullis.env')).mode & 0o777).toBe(0o600);

    const port = await freePort();
    const env = envOf(join(out, 'portcullis.env'));
    gateway = startGatewayProcess({ ...env, PORT: String(port), LOG_LEVEL: 'info' });
    await gateway.waitForLine('portcullis listening');
    const url = `http://127.0.0.1:${port}`;
    const login = await post(url, '/api/login', { email: 'bob', password: 'bob-old-password' });
    expect(login.status).toBe(200);
    const totp = await post(url, '/api/totp', { code: await generate({ secret: 'MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U' }) }, sessionCookie(login));
    expect(totp.status).toBe(200);
    const cookie = sessionCookie(totp);
    const whoami = await forwardAuth(url, 'https://whoami.example.com/', cookie);
    expect(whoami.status).toBe(200);
    expect(whoami.headers.get('x-team')).toBe('whoami');
    expect((await forwardAuth(url, 'https://whoami.example.com/public/page')).status).toBe(200);
    expect((await forwardAuth(url, 'https://whoami.example.com/private')).status).toBe(401);
  });

  it('keeps files an earlier import wrote unless --force', async () => {
    const out = join(root, 'out');
    const args = ['import', 'tinyauth', '--env', join(FIXTURES, 'tinyauth.env'), '--out', out];
    expect((await runCli(args)).code).toBe(0);
    writeFileSync(join(out, 'access-rules.yml'), 'default_policy: deny\n');
    const again = await runCli(args);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/access-rules\.yml exists: give --force to replace it/);
    expect(readFileSync(join(out, 'access-rules.yml'), 'utf8')).toBe('default_policy: deny\n');
    expect((await runCli([...args, '--force'])).code).toBe(0);
    expect(readFileSync(join(out, 'access-rules.yml'), 'utf8')).toContain('Written by portcullis import');
    const help = await runCli(['import', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('The import never widens access');
  });

  it('an unknown label field: its place, exit 2, nothing written', async () => {
    const out = join(root, 'out');
    const compose = join(root, 'compose.yml');
    writeFileSync(compose, 'services:\n  app:\n    labels:\n      - tinyauth.apps.app.users.alow=bob\n');
    const run = await runCli(['import', 'tinyauth', '--env', join(FIXTURES, 'tinyauth.env'), '--compose', compose, '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/compose\.yml: line 4: services\.app\.labels\[0\]: unknown field "users\.alow"/);
    expect(() => readFileSync(join(out, 'portcullis.env'))).toThrow();
  });
});
