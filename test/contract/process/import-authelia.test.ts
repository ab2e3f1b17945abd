import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'otplib';
import { freePort } from '../../support/net';
import { runCli, startGatewayProcess, type Child } from '../../support/process';
import { envOf, forwardAuth, post, sessionCookie } from '../../support/imported-gateway';

jest.setTimeout(90_000);

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'import', 'authelia');
/** A SHA1/30 s/6-digit TOTP secret, as Authelia's export writes it. */
const BOB_TOTP = 'MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U';

/**
 * After `portcullis import authelia`, the gateway starts on the written files, and the imported
 * people log in with their old passwords and TOTP codes, under the imported rules.
 */
describe('portcullis import authelia, then the gateway on its files', () => {
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

  it('imports users, TOTP secrets, rules and settings; the gateway starts on them and people log in as before', async () => {
    const out = join(root, 'out');
    // The bcrypt accounts of the fixture, bob with a TOTP secret from an Authelia export.
    const users = readFileSync(join(FIXTURES, 'users_database.yml'), 'utf8').replace(/\n {2}alice:[\s\S]*?(?=\n {2}bob:)/, '').replace(/\n {2}carol:[\s\S]*?(?=\n {2}dave:)/, '');
    writeFileSync(join(root, 'users_database.yml'), users);
    writeFileSync(join(root, 'totp.txt'), `otpauth://totp/example.com:bob?algorithm=SHA1&digits=6&issuer=example.com&period=30&secret=${BOB_TOTP}\n`);
    const run = await runCli([
      'import',
      'authelia',
      '--config',
      join(FIXTURES, 'configuration.yml'),
      '--users',
      join(root, 'users_database.yml'),
      '--totp',
      join(root, 'totp.txt'),
      '--check',
      join(FIXTURES, 'requests.txt'),
      '--out',
      out,
      '--stricter',
    ]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toContain('user dave: imported DISABLED');
    expect(run.stdout).not.toContain('WIDER');
    expect(run.stdout).toMatch(/rule 24 \(.*configuration\.yml line 131\) → apps\.media-example-com\.paths\[\d+\]/);
    const env = envOf(join(out, 'portcullis.env'));
    expect(env).toMatchObject({ APP_URL: 'https://auth.example.com', LOGIN_MAX_RETRIES: '4', OIDC_CLIENTS_GRAFANA_ALLOWED_USERS: 'bob' });
    expect(run.stdout).not.toContain(env.SECRET);
    expect(run.stdout).not.toContain(env.OIDC_CLIENTS_GRAFANA_CLIENT_SECRET);

    const port = await freePort();
    gateway = startGatewayProcess({ ...env, PORT: String(port), LOG_LEVEL: 'info' });
    await gateway.waitForLine('portcullis listening');
    const url = `http://127.0.0.1:${port}`;

    // bob: his bcrypt password as it was, then his TOTP code.
    const bob = await post(url, '/api/login', { email: 'bob', password: 'bob-old-password' });
    expect(bob.status).toBe(200);
    const totp = await post(url, '/api/totp', { code: await generate({ secret: BOB_TOTP }) }, sessionCookie(bob));
    expect(totp.status).toBe(200);
    const bobCookie = sessionCookie(totp);
    expect((await forwardAuth(url, 'https://app.example.com/', bobCookie)).status).toBe(200);
    expect((await forwardAuth(url, 'https://app.example.com/admin', bobCookie)).status).toBe(403);
    expect((await forwardAuth(url, 'https://app.example.com/health')).status).toBe(200);
    expect((await forwardAuth(url, 'https://app.example.com/')).status).toBe(401);
    // dave: a hash kind the gateway cannot verify, imported disabled; erin was disabled in Authelia.
    expect((await post(url, '/api/login', { email: 'dave', password: 'anything' })).status).toBe(401);
    expect((await post(url, '/api/login', { email: 'erin', password: 'erin-old-password' })).status).toBe(401);
  });

  it('bad input: the file and line, exit 2, nothing written', async () => {
    const out = join(root, 'out');
    const cases: [string, RegExp][] = [
      ['access_control:\n  rules:\n    - domain: a.example.com\n      policy: allow\n', /bad\.yml: line 4: access_control\.rules\[0\]\.policy: unknown policy "allow"/],
      ['access_control:\n  rules:\n    - domain: a.example.com\n      polcy: deny\n', /bad\.yml: line 4: access_control\.rules\[0\]\.polcy: unknown key "polcy"/],
      ["access_control:\n  rules:\n    - domain: a.example.com\n      resources: ['^/(x']\n      policy: deny\n", /bad\.yml: line 4: access_control\.rules\[0\]\.resources\[0\]: the regular expression "\^\/\(x" does not compile/],
      ['access_control:\n  rules:\n    - domain: [a.example.com\n', /bad\.yml: line \d: invalid YAML/],
      ['acess_control: {}\n', /bad\.yml: line 1: acess_control: unknown key/],
    ];
    for (const [text, message] of cases) {
      writeFileSync(join(root, 'bad.yml'), text);
      const run = await runCli(['import', 'authelia', '--config', join(root, 'bad.yml'), '--out', out]);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 2, stderr: expect.stringMatching(message) });
      expect(run.stderr).toContain('nothing written');
      expect(() => readFileSync(join(out, 'access-rules.yml'))).toThrow();
    }
  });

  it('a rule that cannot be expressed exactly stops the import without --stricter (exit 1, nothing written)', async () => {
    const out = join(root, 'out');
    const run = await runCli(['import', 'authelia', '--config', join(FIXTURES, 'configuration.yml'), '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('STRICTER: query conditions have no counterpart');
    expect(run.stderr).toMatch(/cannot be expressed exactly .*nothing written\. Give --stricter/);
    expect(() => readFileSync(join(out, 'portcullis.env'))).toThrow();
  });
});
