import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcrypt';
import { runCli as cli } from '../../support/process';

jest.setTimeout(60_000);

/** `portcullis init <dir>`: what a first start needs (a random SECRET_FILE, a USERS_FILE), made once. */
describe('portcullis init', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'portcullis-init-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('--demo writes a random secret and the documented demo account (alice / portcullis-demo), owner-only', async () => {
    const dir = join(root, 'nested', 'init');
    const run = await cli(['init', dir, '--demo']);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const secret = readFileSync(join(dir, 'secret'), 'utf8').trim();
    expect(secret).toMatch(/^[A-Za-z0-9+/=]{64}$/);
    const [name, hash] = readFileSync(join(dir, 'users'), 'utf8').trim().split(':');
    expect(name).toBe('alice');
    expect(await bcrypt.compare('portcullis-demo', hash)).toBe(true);
    expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'users')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(run.stdout).toContain(`wrote ${join(dir, 'secret')}`);
    expect(run.stdout).toContain('alice');
    expect(run.stdout).toContain('portcullis-demo');
    expect(run.stdout).not.toContain(secret);

    // A second run (every `docker compose up`) keeps both: sessions and the password survive.
    const again = await cli(['init', dir, '--demo']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`kept ${join(dir, 'secret')}`);
    expect(again.stdout).toContain(`kept ${join(dir, 'users')}`);
    expect(readFileSync(join(dir, 'secret'), 'utf8').trim()).toBe(secret);
    expect(readFileSync(join(dir, 'users'), 'utf8').trim().split(':')[1]).toBe(hash);

    // What it wrote is what the gateway starts with.
    const check = await cli(['config', 'check'], {
      env: {
        APP_URL: 'http://auth.example.localhost',
        COOKIE_SECURE: 'false',
        SECRET_FILE: join(dir, 'secret'),
        USERS_FILE: join(dir, 'users'),
        DATA_DIR: root,
      },
    });
    expect({ code: check.code, err: check.stderr }).toEqual({ code: 0, err: expect.any(String) });
  });

  it('without --demo makes the named account with the password given on standard input, and two runs make different secrets', async () => {
    const one = await cli(['init', join(root, 'one'), '--user', 'bob', '--password-stdin'], { input: 'bob-Pa55word!\n' });
    expect(one.code).toBe(0);
    expect(one.stdout).not.toContain('bob-Pa55word!');
    const [name, hash] = readFileSync(join(root, 'one', 'users'), 'utf8')
      .trim()
      .split(':');
    expect(name).toBe('bob');
    expect(await bcrypt.compare('bob-Pa55word!', hash)).toBe(true);
    const two = await cli(['init', join(root, 'two'), '--user', 'bob', '--password-stdin'], { input: 'bob-Pa55word!\n' });
    expect(two.code).toBe(0);
    expect(readFileSync(join(root, 'one', 'secret'), 'utf8')).not.toBe(readFileSync(join(root, 'two', 'secret'), 'utf8'));
  });

  it('refuses a call it cannot carry out clearly (exit 2), writing nothing', async () => {
    for (const args of [
      ['init'],
      ['init', join(root, 'x'), '--demo', '--password-stdin'],
      ['init', join(root, 'x'), '--user', 'a:b', '--demo'],
      ['init', join(root, 'x'), '--bogus'],
    ]) {
      const run = await cli(args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(/^portcullis: /);
    }
    expect(() => statSync(join(root, 'x'))).toThrow();
    const help = await cli(['init', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: portcullis init/);
  });
});
