import { createServer } from 'node:net';
import bcrypt from 'bcrypt';
import { tempDataDir } from '../../support/data-dir';
import { freePort } from '../../support/net';
import { built, runNode, type Child } from '../../support/process';

const MAIN = 'src/main.js';

/** Start-up as the product runs it: `node dist/src/main.js`, configured by its environment and flags. */
describe('starting portcullis as a process', () => {
  let child: Child | null = null;
  const cleanups: Array<() => void> = [];
  const afterThis = (fn: () => void): void => {
    cleanups.push(fn);
  };
  afterEach(async () => {
    await child?.stop();
    child = null;
    for (const fn of cleanups.splice(0)) fn();
  });

  it('refuses an invalid configuration with one message listing every problem, a non-zero exit and no stack trace', async () => {
    const secret = 'short-secret';
    child = runNode(built(MAIN), ['--no-such-option=1'], {
      APP_URL: 'auth.example.test',
      SECRET: secret,
      USERS: 'alice:plaintext-password,bob',
      TRUSTED_PROXIES: '10.0.0.0/40',
    });
    const code = await child.exited;
    expect(code).not.toBe(0);
    const out = child.stderr;
    expect(out).toMatch(/^Portcullis cannot start; fix the configuration:\n/);
    for (const problem of [
      /unknown option --no-such-option/,
      /APP_URL needs a scheme: add https:\/\/ in front/,
      /SECRET must be at least 32/,
      /USERS entry 1 \(alice\)/,
      /USERS entry 2/,
      /TRUSTED_PROXIES: "10\.0\.0\.0\/40"/,
    ]) {
      expect(out).toMatch(problem);
    }
    expect(out.match(/cannot start/g)).toHaveLength(1);
    expect(out).not.toMatch(/\n\s+at /);
    expect(out).not.toContain(secret);
    expect(out).not.toContain('plaintext-password');
    expect(child.stdout).toBe('');
  });

  it('starts a loud demo with a random password when nothing is configured, and serves the API', async () => {
    const port = await freePort();
    child = runNode(built(MAIN), [], { PORT: String(port), ADDRESS: '127.0.0.1' });
    const [, password] = await child.waitFor(/password: (\S+)/);
    expect(child.stderr).toMatch(/DEMO MODE/);
    expect(child.stderr).toContain(`http://localhost:${port}/login`);
    expect(child.stderr).toMatch(/username: demo/);
    expect(password.length).toBeGreaterThanOrEqual(12);
    await child.waitFor(/portcullis listening/);

    const health = await fetch(`http://127.0.0.1:${port}/api/healthcheck`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 200, code: 'ok', message: 'OK' });
    const login = await fetch(`http://127.0.0.1:${port}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'demo', password }),
    });
    expect(login.status).toBe(200);
    // Host-only cookie for localhost, not Secure over http.
    expect(login.headers.getSetCookie()[0]).not.toMatch(/Domain=|Secure/);
  }, 30_000);

  it('gives each demo start a different password', async () => {
    const passwords: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const port = await freePort();
      child = runNode(built(MAIN), [], { PORT: String(port), ADDRESS: '127.0.0.1' });
      passwords.push((await child.waitFor(/password: (\S+)/))[1]);
      await child.stop();
      child = null;
    }
    expect(passwords[0]).not.toBe(passwords[1]);
  }, 30_000);

  it('starts without any demo banner when configured through --kebab-case flags', async () => {
    const port = await freePort();
    const data = tempDataDir();
    afterThis(() => data.remove());
    child = runNode(
      built(MAIN),
      ['--app-url', 'https://auth.example.test', `--secret=${'s'.repeat(40)}`, '--users', `alice:${bcrypt.hashSync('pw', 4)}`, '--port', String(port)],
      { ADDRESS: '127.0.0.1', LOG_LEVEL: 'info', DATA_DIR: data.dir },
    );
    await child.waitFor(/portcullis listening/);
    expect(child.stderr).not.toMatch(/DEMO|password:/);
    const res = await fetch(`http://127.0.0.1:${port}/api/app`);
    expect(((await res.json()) as { domain: string }).domain).toBe('example.test');
    expect(child.stdout + child.stderr).not.toContain('s'.repeat(40));
    await child.stop();
    expect(await child.exited).toBe(0);
  }, 30_000);

  it('reports a port that is already taken in one line, without a stack trace, and exits non-zero', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      child = runNode(built(MAIN), [], { PORT: String(port), ADDRESS: '127.0.0.1' });
      expect(await child.exited).not.toBe(0);
      expect(child.stderr).toContain(`PORT ${port} (on ADDRESS 127.0.0.1): another program listens there already`);
      expect(child.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 30_000);

  it('warns loudly at start when OAuth admits every account of the provider (no OAUTH_WHITELIST, no access rules)', async () => {
    const port = await freePort();
    child = runNode(built(MAIN), [], {
      APP_URL: 'https://auth.example.test',
      SECRET: 's'.repeat(40),
      GITHUB_CLIENT_ID: 'id',
      GITHUB_CLIENT_SECRET: 'gh-client-secret-0123456789',
      PORT: String(port),
      ADDRESS: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    await child.waitFor(/portcullis listening/);
    const lines = child.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: expect.stringMatching(/^OAUTH_WHITELIST is empty and ACCESS_CONFIG is not set: every account of github can log in/),
      }),
    );
    expect(child.stdout).not.toContain('gh-client-secret-0123456789');
  }, 30_000);

  it('refuses to start with the SECRET and the account of the docker-compose example, naming both', async () => {
    child = runNode(built(MAIN), [], {
      APP_URL: 'https://auth.example.test',
      SECRET: 'change-this-to-a-long-random-secret-of-at-least-32-characters',
      USERS: 'alice:$$2b$$10$$qh8XTM/ilzLw1WKUE1404.udAi8OZn8nKDbNvDORqMRu1KM6HS19q',
    });
    expect(await child.exited).not.toBe(0);
    expect(child.stderr).toMatch(/SECRET is a placeholder copied from the examples/);
    expect(child.stderr).toMatch(/USERS: alice's password hash is a placeholder/);
    expect(child.stderr).not.toContain('change-this-to-a-long-random-secret');
  }, 30_000);

  it('warns on stderr when a secret is given as a command-line flag, without repeating it', async () => {
    const port = await freePort();
    const secret = 'flag-secret-flag-secret-flag-secret-0123';
    child = runNode(built(MAIN), ['--secret', secret, '--port', String(port)], {
      APP_URL: 'https://auth.example.test',
      USERS: `alice:${bcrypt.hashSync('pw', 4)}`,
      ADDRESS: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    await child.waitFor(/portcullis listening/);
    expect(child.stderr).toMatch(/warning: --secret on the command line is visible to other users \(ps\)/);
    expect(child.stderr + child.stdout).not.toContain(secret);
  }, 30_000);
});
