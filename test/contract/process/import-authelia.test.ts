import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'otplib';
import { freePort } from '../../support/net';
import { runCli, startGatewayProcess, type Child } from '../../support/process';
import { envOf, forwardAuth, post, sessionCookie } from '../../support/imported-gateway';

jest.setTimeout(90_000);

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'import', 'authelia');
/** Alice's TOTP secret in the fixture's export (SHA1, 30 s, 6 digits). */
const ALICE_TOTP = 'KRUGS4ZANFZSAYLMNFRWKJ3TEBZWKY3S';
/** The secret the fixture's PBKDF2-SHA512 hash of the grafana client was made of. */
const GRAFANA_SECRET = 'grafana-secret-kept-by-authelia-0123456789abcdef';

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
    const f = (name: string): string => join(FIXTURES, name);
    const run = await runCli([
      'import',
      'authelia',
      '--config',
      f('configuration.yml'),
      '--users',
      f('users_database.yml'),
      '--totp',
      f('totp.txt'),
      '--check',
      f('requests.txt'),
      '--out',
      out,
      '--stricter',
    ]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toContain('user dave: imported DISABLED');
    expect(run.stdout).not.toContain('WIDER');
    expect(run.stdout).toMatch(/rule 24 \(.*configuration\.yml line 131\) → apps\.media-example-com\.paths\[\d+\]/);
    const env = envOf(join(out, 'portcullis.env'));
    expect(env).toMatchObject({ APP_URL: 'https://auth.example.com', LOGIN_MAX_RETRIES: '4', OIDC_CLIENTS_GRAFANA_ALLOWED_USERS: 'alice' });
    expect(run.stdout).not.toContain(env.SECRET);
    // grafana's secret was hashed in Authelia (PBKDF2-SHA512): the hash carries over, no new secret.
    expect(env.OIDC_CLIENTS_GRAFANA_CLIENT_SECRET).toBeUndefined();
    expect(env.OIDC_CLIENTS_GRAFANA_CLIENT_SECRET_HASH).toMatch(/^\$pbkdf2-sha512\$310000\$/);
    expect(run.stdout).toContain('OIDC client grafana: its hashed secret carries over as CLIENT_SECRET_HASH');
    expect(run.stdout).not.toContain(env.OIDC_CLIENTS_GRAFANA_CLIENT_SECRET_HASH);
    expect(run.stdout).not.toContain(env.OIDC_CLIENTS_WIKI_APP_CLIENT_SECRET);
    // The file sourced as docs/cli.md says (`set -a; . portcullis.env`): the hash's `$` and the scopes' space survive.
    const sourced = execFileSync(
      'bash',
      ['-c', 'set -a; . "$1"; printf "%s\\n%s" "$OIDC_CLIENTS_GRAFANA_CLIENT_SECRET_HASH" "$OIDC_CLIENTS_WIKI_APP_SCOPES"', '-', join(out, 'portcullis.env')],
      {
        encoding: 'utf8',
      },
    );
    expect(sourced).toBe(`${env.OIDC_CLIENTS_GRAFANA_CLIENT_SECRET_HASH}\nopenid email`);

    const port = await freePort();
    gateway = startGatewayProcess({ ...env, PORT: String(port), LOG_LEVEL: 'info' });
    await gateway.waitForLine('portcullis listening');
    const url = `http://127.0.0.1:${port}`;

    // alice: her argon2id password (Authelia's default parameters), then the code of her exported TOTP secret.
    const alice = await post(url, '/api/login', { email: 'alice', password: 'alice-old-password' });
    expect(alice.status).toBe(200);
    const totp = await post(url, '/api/totp', { code: await generate({ secret: ALICE_TOTP }) }, sessionCookie(alice));
    expect(totp.status).toBe(200);
    const aliceCookie = sessionCookie(totp);
    expect((await forwardAuth(url, 'https://app.example.com/admin', aliceCookie)).status).toBe(200);
    expect((await post(url, '/api/login', { email: 'alice', password: 'wrong-password' })).status).toBe(401);

    // bob: bcrypt (his SHA256 TOTP secret did not carry over, so a password is all he gives).
    const bob = await post(url, '/api/login', { email: 'bob', password: 'bob-old-password' });
    expect(bob.status).toBe(200);
    const bobCookie = sessionCookie(bob);
    expect((await forwardAuth(url, 'https://app.example.com/', bobCookie)).status).toBe(200);
    expect((await forwardAuth(url, 'https://app.example.com/admin', bobCookie)).status).toBe(403);
    expect((await forwardAuth(url, 'https://app.example.com/health')).status).toBe(200);
    expect((await forwardAuth(url, 'https://app.example.com/')).status).toBe(401);

    // grafana authenticates at the token endpoint with the secret Authelia's hash was made of (the
    // code is bogus: invalid_grant says the client got past authentication); a wrong secret does not.
    const redeem = (secret: string): Promise<Response> =>
      fetch(`${url}/oidc/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`grafana:${secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: 'not-a-code',
          redirect_uri: 'https://grafana.example.com/login/generic_oauth',
        }).toString(),
      });
    expect(((await (await redeem(GRAFANA_SECRET)).json()) as { error: string }).error).toBe('invalid_grant');
    expect(((await (await redeem(`${GRAFANA_SECRET}x`)).json()) as { error: string }).error).toBe('invalid_client');

    // carol: argon2i. dave: a hash kind the gateway cannot verify, imported disabled; erin was disabled in Authelia.
    expect((await post(url, '/api/login', { email: 'carol', password: 'carol-old-password' })).status).toBe(200);
    expect((await post(url, '/api/login', { email: 'dave', password: 'anything' })).status).toBe(401);
    expect((await post(url, '/api/login', { email: 'erin', password: 'erin-old-password' })).status).toBe(401);
  });

  it('bad input: the file and line, exit 2, nothing written', async () => {
    const out = join(root, 'out');
    const cases: [string, RegExp][] = [
      [
        'access_control:\n  rules:\n    - domain: a.example.com\n      policy: allow\n',
        /bad\.yml: line 4: access_control\.rules\[0\]\.policy: unknown policy "allow"/,
      ],
      [
        'access_control:\n  rules:\n    - domain: a.example.com\n      polcy: deny\n',
        /bad\.yml: line 4: access_control\.rules\[0\]\.polcy: unknown key "polcy"/,
      ],
      [
        "access_control:\n  rules:\n    - domain: a.example.com\n      resources: ['^/(x']\n      policy: deny\n",
        /bad\.yml: line 4: access_control\.rules\[0\]\.resources\[0\]: the regular expression "\^\/\(x" does not compile/,
      ],
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
