import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as argon2 from 'argon2';
import bcrypt from 'bcrypt';
import { generate, verify } from 'otplib';
import { hashOf } from '../../support/credentials';
import { gatewayMain, runCli as cli } from '../../support/process';

const BIN = gatewayMain();
const HASH = hashOf('s3cret pw');
const ENTRY = `alice:${HASH}`;

// Each test starts node processes; on a busy two-core machine that alone can take seconds.
jest.setTimeout(60_000);

describe('portcullis CLI (the built executable)', () => {
  it('lists its commands with --help', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    for (const command of ['serve', 'user add', 'user verify', 'totp enroll', 'config check', 'backup <file>', 'restore <file>'])
      expect(run.stdout).toContain(command);
  });

  it('has --help on every command', async () => {
    expect((await cli(['explain', '--help'])).code).toBe(0);
    for (const args of [
      ['user', 'add', '--help'],
      ['user', 'verify', '--help'],
      ['totp', 'enroll', '--help'],
      ['config', 'check', '--help'],
      ['user', '--help'],
      ['serve', '--help'],
      ['backup', '--help'],
      ['restore', '--help'],
    ]) {
      const run = await cli(args);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: portcullis/);
    }
    expect((await cli(['serve', '--help'])).stdout).toContain('--ldap-address');
  });

  it('answers an unknown command with one line and exit code 2', async () => {
    const run = await cli(['frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('portcullis: unknown command "frobnicate" (see portcullis --help)\n');
    expect(run.stdout).toBe('');
  });

  it('user add reads the password and its confirmation from piped stdin and prints a USERS entry and its docker-compose form', async () => {
    const run = await cli(['user', 'add', 'alice', '--cost', '4'], { input: 'correct horse\ncorrect horse\n' });
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    const entry = lines.find((l) => l.startsWith('alice:$2'));
    const compose = lines.find((l) => l.startsWith('alice:$$2'));
    expect(entry).toMatch(/^alice:\$2b\$04\$[./A-Za-z0-9]{53}$/);
    expect(compose).toBe(entry?.replace(/\$/g, '$$$$'));
    expect(await bcrypt.compare('correct horse', (entry ?? '').slice('alice:'.length))).toBe(true);
    expect(run.stdout).not.toContain('correct horse');
  });

  it('user add on a terminal asks twice without echoing the password', async () => {
    // `script` gives the CLI a real pseudo-terminal; each answer is typed once its prompt appears.
    const child = spawn('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} user add tty --cost 4 --plain`, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    let answered = 0;
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      const prompts = (screen.match(/Password: |Repeat password: /g) ?? []).length;
      for (; answered < prompts; answered += 1) child.stdin.write('typed secret\r');
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    expect(answered).toBe(2);
    expect(screen).not.toContain('typed secret');
    const entry = /tty:(\S+)/.exec(screen)?.[1] ?? '';
    expect(await bcrypt.compare('typed secret', entry)).toBe(true);
  });

  it('user add --plain prints the entry alone, and one line of stdin is enough', async () => {
    const run = await cli(['user', 'add', 'bob@example.com', '--cost', '4', '--plain'], { input: 'pw-only-once' });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^bob@example\.com:\$2b\$04\$[./A-Za-z0-9]{53}\n$/);
  });

  it("user add --argon2id writes an Argon2id hash with Authelia's default parameters, which user verify and argon2 accept", async () => {
    const run = await cli(['user', 'add', 'carol', '--argon2id', '--plain'], { input: 'argon pw\nargon pw\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^carol:\$argon2id\$v=19\$m=65536,p=4,t=3\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}\n$/);
    const entry = run.stdout.trim();
    expect(await argon2.verify(entry.slice('carol:'.length), 'argon pw')).toBe(true);
    expect(await cli(['user', 'verify', entry, '-'], { input: 'argon pw\n' })).toMatchObject({ code: 0, stdout: "the password matches carol's entry\n" });
    expect(await cli(['user', 'verify', entry.slice('carol:'.length), '-'], { input: 'argon PW\n' })).toMatchObject({ code: 1 });
    const both = await cli(['user', 'add', 'carol', '--argon2id', '--cost', '12'], { input: 'pw\n' });
    expect(both.code).toBe(2);
  });

  it('user add refuses a confirmation that differs, an empty password and a bad name, in one line each', async () => {
    const differs = await cli(['user', 'add', 'alice'], { input: 'one\ntwo\n' });
    expect([differs.code, differs.stderr]).toEqual([1, 'portcullis: the two passwords differ\n']);
    const empty = await cli(['user', 'add', 'alice'], { input: '' });
    expect(empty.code).toBe(1);
    expect(empty.stderr.trim().split('\n')).toHaveLength(1);
    const badName = await cli(['user', 'add', 'al ice'], { input: 'pw\n' });
    expect(badName.code).toBe(2);
    expect(badName.stderr).toMatch(/^portcullis: the name must be .*\n$/);
    const badCost = await cli(['user', 'add', 'alice', '--cost', '99'], { input: 'pw\n' });
    expect([badCost.code, badCost.stderr]).toEqual([2, 'portcullis: --cost must be a whole number from 4 to 15 (see portcullis --help)\n']);
  });

  it('user verify says whether a password matches an entry, also in its $$ form and from stdin', async () => {
    expect(await cli(['user', 'verify', ENTRY, 's3cret pw'])).toMatchObject({ code: 0, stdout: "the password matches alice's entry\n" });
    expect(await cli(['user', 'verify', ENTRY.replace(/\$/g, '$$$$'), 's3cret pw'])).toMatchObject({ code: 0 });
    expect(await cli(['user', 'verify', ENTRY, '-'], { input: 's3cret pw\n' })).toMatchObject({ code: 0 });
    expect(await cli(['user', 'verify', ENTRY, 'wrong'])).toMatchObject({ code: 1, stdout: "the password does NOT match alice's entry\n" });
    const malformed = await cli(['user', 'verify', 'alice:plain', 'x']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(
      /^portcullis: the entry \(alice\): password must be a bcrypt \(\$2a\$, \$2b\$, \$2y\$\) or Argon2 \(\$argon2id\$, \$argon2i\$\) hash; it holds no "\$".*\(see portcullis --help\)\n$/,
    );
  });

  it('totp enroll prints a working secret, its otpauth URI, a QR code and the completed entry', async () => {
    const run = await cli(['totp', 'enroll', 'alice', '--entry', ENTRY, '--issuer', 'Example Co']);
    expect(run.code).toBe(0);
    const uri = /otpauth:\/\/totp\/\S+/.exec(run.stdout)?.[0] ?? '';
    const url = new URL(uri);
    expect(decodeURIComponent(url.pathname)).toBe('/Example Co:alice');
    const secret = url.searchParams.get('secret') ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(url.searchParams.get('issuer')).toBe('Example Co');
    expect(run.stdout).toMatch(/[█▀▄]{7}/);
    expect(run.stdout.split('\n')).toContain(`${ENTRY}:${secret}`);
    const token = await generate({ secret });
    expect((await verify({ secret, token })).valid).toBe(true);
  });

  it('totp enroll without an entry says where the secret goes, and refuses an entry of another account', async () => {
    const run = await cli(['totp', 'enroll', 'carol', '--no-qr']);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/[█▀▄]{7}/);
    expect(run.stdout).toMatch(/add ":[A-Z2-7]{32}" to the end of carol's USERS entry/);
    const other = await cli(['totp', 'enroll', 'carol', '--entry', ENTRY]);
    expect(other.code).toBe(2);
    expect(other.stderr).toBe('portcullis: the entry given with --entry belongs to "alice", not "carol" (see portcullis --help)\n');
  });

  it('config check accepts a valid configuration and summarizes the stores', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-cli-'));
    try {
      writeFileSync(join(dir, 'users.yml'), `users:\n  - username: dan\n    password: "${HASH}"\n`);
      const run = await cli(['config', 'check', '--users-file', join(dir, 'users.yml')], {
        env: { APP_URL: 'https://auth.example.com', SECRET: 'x'.repeat(40), USERS: ENTRY, DATA_DIR: join(dir, 'state') },
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('The configuration is valid.');
      expect(run.stdout).toContain(`state: ${join(dir, 'state', 'portcullis.db')}`);
      expect(run.stdout).toContain('USERS: 1 account');
      expect(run.stdout).toContain('users.yml: 1 account');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("config check takes Authelia's Argon2id hashes and names each account whose hash kind it cannot verify, with its line", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-cli-'));
    try {
      const argon = await argon2.hash('pw', { type: argon2.argon2id, memoryCost: 1024, timeCost: 1, parallelism: 1 });
      writeFileSync(
        join(dir, 'users.yml'),
        `users:\n  - username: dan\n    password: "${argon}"\n  - username: eve\n    password: "$pbkdf2-sha512$310000$c2FsdA$aGFzaA"\n`,
      );
      const env = { APP_URL: 'https://auth.example.com', SECRET: 'x'.repeat(40), DATA_DIR: join(dir, 'state') };
      const ok = await cli(['config', 'check'], { env: { ...env, USERS: `alice:${argon.replace(/m=(\d+),p=(\d+),t=(\d+)/, 'm=$1,t=$3,p=$2')}` } });
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain('USERS: 1 account');
      const bad = await cli(['config', 'check', '--users-file', join(dir, 'users.yml')], { env });
      expect(bad.code).not.toBe(0);
      expect(bad.stdout + bad.stderr).toMatch(/USERS_FILE line 4 \(eve\): a PBKDF2 hash cannot be verified/);
      expect(bad.stdout + bad.stderr).not.toContain('c2FsdA');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('config check says where forward auth is answered, and warns while it shares the public port', async () => {
    const env = { APP_URL: 'https://auth.example.com', SECRET: 'x'.repeat(40), USERS: ENTRY };
    const shared = await cli(['config', 'check'], { env });
    expect(shared.stdout).toContain('forward auth (/api/auth/*) on the public port: set FORWARD_AUTH_PORT');
    const separate = await cli(['config', 'check', '--forward-auth-port', '3001'], { env });
    expect(separate.code).toBe(0);
    expect(separate.stdout).toContain('forward auth (/api/auth/*) only on 127.0.0.1:3001; the public port answers it 404');
    const clash = await cli(['config', 'check', '--forward-auth-port', '3000'], { env });
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain('FORWARD_AUTH_PORT must differ from PORT');
  });

  it('config check lists each OAuth provider with its callback, and does not call valid OAUTH_PROVIDERS_<ID>_ variables unknown', async () => {
    const env = {
      APP_URL: 'https://auth.example.com',
      SECRET: 'x'.repeat(40),
      OAUTH_PROVIDERS_CORP_SSO_CLIENT_ID: 'id',
      OAUTH_PROVIDERS_CORP_SSO_CLIENT_SECRET: 'client-secret-value',
      OAUTH_PROVIDERS_CORP_SSO_ISSUER: 'https://sso.example.com',
      OAUTH_PROVIDERS_CORP_SSO_NAME: 'Corp SSO',
      OAUTH_PROVIDERS_CORP_SSO_WHITELIST: '*@example.com',
      OAUTH_PROVIDERS_CORP_SSO_USERINFO_URL: 'https://sso.example.com/me',
    };
    const run = await cli(['config', 'check'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'OAuth corp-sso "Corp SSO": callback https://auth.example.com/api/oauth/callback/corp-sso; issuer https://sso.example.com (discovery, iss checked); its own whitelist',
    );
    expect(run.stderr).toContain('OAUTH_PROVIDERS_CORP_SSO_USERINFO_URL is not a Portcullis option');
    expect(run.stderr).not.toContain('OAUTH_PROVIDERS_CORP_SSO_NAME');
    expect(`${run.stdout}${run.stderr}`).not.toContain('client-secret-value');
    const help = await cli(['serve', '--help']);
    expect(help.stdout).toContain('--oauth-providers-<id>-client-id, --oauth-providers-<id>-client-id-file');
  });

  it('config check reports how the LDAP connection is protected, and warns about plain ldap:// to another machine', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-ldap-ca-'));
    try {
      const ca = join(dir, 'ca.pem');
      writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
      const env = { APP_URL: 'https://auth.example.com', SECRET: 'x'.repeat(40), LDAP_BASE_DN: 'dc=example,dc=com' };
      const startTls = await cli(['config', 'check'], {
        env: { ...env, LDAP_ADDRESS: 'ldap://ldap.example.com', LDAP_START_TLS: 'true', LDAP_CA_FILE: ca, LDAP_NESTED_GROUPS: 'ad' },
      });
      expect(startTls.code).toBe(0);
      expect(startTls.stdout).toContain('StartTLS required (no plain-text fallback), certificate verified against LDAP_CA_FILE; nested groups: ad');
      expect(startTls.stderr).not.toContain('plain ldap://');
      const ldaps = await cli(['config', 'check'], { env: { ...env, LDAP_ADDRESS: 'ldaps://ldap.example.com' } });
      expect(ldaps.stdout).toContain("TLS (ldaps://), certificate verified against the system's CAs");
      const plain = await cli(['config', 'check'], { env: { ...env, LDAP_ADDRESS: 'ldap://ldap.example.com' } });
      expect(plain.code).toBe(0);
      expect(plain.stdout).toContain('no TLS: passwords cross the network in plain text');
      expect(plain.stdout + plain.stderr).toContain('LDAP_ADDRESS ldap://ldap.example.com is plain ldap:// to another machine');
      const loopback = await cli(['config', 'check'], { env: { ...env, LDAP_ADDRESS: 'ldap://127.0.0.1:3389' } });
      expect(loopback.stdout + loopback.stderr).not.toContain('is plain ldap:// to another machine');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('config check lists every problem and exits non-zero, never echoing a secret', async () => {
    const run = await cli(['config', 'check', '--ldap-address', 'http://x'], {
      env: { APP_URL: 'ftp://x', SECRET: 'short-secret-value', USERS: 'alice:nope' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The configuration has 5 problems:');
    for (const p of [
      'APP_URL must be an http or https URL',
      'SECRET must be at least 32 characters long',
      'USERS entry 1 (alice)',
      'LDAP_ADDRESS must start with ldap:// or ldaps://',
      'LDAP_BASE_DN is required',
    ]) {
      expect(run.stderr).toContain(p);
    }
    expect(run.stderr).not.toContain('short-secret-value');
  });

  it('config check refuses an empty configuration, which would only start the demo', async () => {
    const run = await cli(['config', 'check']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^portcullis: nothing is configured .* demo\n$/);
  });

  it('still starts the gateway when given no command, only options', async () => {
    const run = await cli(['--no-such-option'], { env: { APP_URL: 'https://auth.example.com', SECRET: 'x'.repeat(40), USERS: ENTRY } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown option --no-such-option');
  });

  describe('secrets kept out of arguments', () => {
    const ARG_WARNING =
      'portcullis: warning: a password given as an argument is visible to other users (ps) and stays in shell history; use --password-stdin or --password-file\n';

    it('user verify warns on stderr when the password is an argument, and not when it comes from stdin or a file', async () => {
      const argument = await cli(['user', 'verify', ENTRY, 's3cret pw']);
      expect(argument).toMatchObject({ code: 0, stderr: ARG_WARNING });
      expect(await cli(['user', 'verify', ENTRY, '--password-stdin'], { input: 's3cret pw\n' })).toMatchObject({
        code: 0,
        stderr: '',
        stdout: "the password matches alice's entry\n",
      });
      expect(await cli(['user', 'verify', ENTRY, '-'], { input: 's3cret pw\n' })).toMatchObject({ code: 0, stderr: '' });
      const dir = mkdtempSync(join(tmpdir(), 'portcullis-cli-'));
      try {
        writeFileSync(join(dir, 'pw'), 's3cret pw\n');
        expect(await cli(['user', 'verify', ENTRY, '--password-file', join(dir, 'pw')])).toMatchObject({ code: 0, stderr: '' });
        expect(await cli(['user', 'verify', ENTRY, `--password-file=${join(dir, 'pw')}`])).toMatchObject({ code: 0 });
        writeFileSync(join(dir, 'wrong'), 'nope\n');
        expect(await cli(['user', 'verify', ENTRY, '--password-file', join(dir, 'wrong')])).toMatchObject({ code: 1 });
        const missing = await cli(['user', 'verify', ENTRY, '--password-file', join(dir, 'absent')]);
        expect(missing.code).toBe(1);
        expect(missing.stderr).toMatch(/^portcullis: cannot read the password file /);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const both = await cli(['user', 'verify', ENTRY, 'x', '--password-stdin']);
      expect(both.code).toBe(2);
    });

    it('user add reads the password from --password-file or --password-stdin (one line, no confirmation needed)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'portcullis-cli-'));
      try {
        writeFileSync(join(dir, 'pw'), 'correct horse\n');
        const fromFile = await cli(['user', 'add', 'alice', '--cost', '4', '--plain', '--password-file', join(dir, 'pw')]);
        expect(fromFile.code).toBe(0);
        const hash = fromFile.stdout.trim().slice('alice:'.length);
        expect(bcrypt.compareSync('correct horse', hash)).toBe(true);
        const fromStdin = await cli(['user', 'add', 'bob', '--cost', '4', '--plain', '--password-stdin'], { input: 'battery staple\n' });
        expect(fromStdin.code).toBe(0);
        expect(bcrypt.compareSync('battery staple', fromStdin.stdout.trim().slice('bob:'.length))).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('config check warns about a secret given as a flag and about OAuth open to every account, and still exits 0', async () => {
      const run = await cli(['config', 'check', '--secret', 'a-flag-secret-a-flag-secret-a-flag-secret'], {
        env: { APP_URL: 'https://auth.example.com', GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'gh-client-secret-0123456789' },
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('The configuration is valid.');
      expect(run.stderr).toContain('portcullis: warning: --secret on the command line is visible to other users (ps)');
      expect(run.stderr).toContain('portcullis: warning: OAUTH_WHITELIST is empty and ACCESS_CONFIG is not set: every account of github can log in');
      expect(run.stderr + run.stdout).not.toMatch(/a-flag-secret|gh-client-secret/);
    });

    it('config check refuses placeholder secrets from the examples, naming the option', async () => {
      const run = await cli(['config', 'check'], {
        env: { APP_URL: 'https://auth.example.com', SECRET: 'change-me-to-at-least-32-random-characters-please', USERS: ENTRY },
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('SECRET is a placeholder copied from the examples');
    });
  });

  it('names the command or option a typo most likely meant', async () => {
    expect((await cli(['sesions'])).stderr).toBe('portcullis: unknown command "sesions": did you mean sessions? (see portcullis --help)\n');
    expect((await cli(['config', 'chek'])).stderr).toContain('unknown command "config chek": did you mean config check?');
    expect((await cli(['backup', '--data-dri', '/tmp/x', 'out.db'])).stderr).toContain('unknown option --data-dri: did you mean --data-dir?');
    const serve = await cli(['--prot', '3000']);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain('unknown option --prot: did you mean --port?');
  });
});
