import { createServer } from 'node:net';
import bcrypt from 'bcrypt';
import { built, freePort, runNode, type Child } from '../../support/process';
import { tempDataDir } from '../../support/data-dir';

const MAIN = 'src/main.js';

/** Start-up as the product runs it: `node dist/src/main.js`, configured by its environment and flags. */
describe('starting portcullis as a process', () => {
  let child: Child | null = null;
  let cleanups: Array<() => void> = [];
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
    for (const problem of [/unknown option --no-such-option/, /APP_URL is not a valid URL/, /SECRET must be at least 32/, /USERS entry 1 \(alice\)/, /USERS entry 2/, /TRUSTED_PROXIES: "10\.0\.0\.0\/40"/]) {
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
    expect(await health.json()).toEqual({ status: 200, message: 'OK' });
    const login = await fetch(`http://127.0.0.1:${port}/api/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'demo', password }),
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
      expect(child.stderr).toMatch(/Portcullis failed to start: .*EADDRINUSE/);
      expect(child.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 30_000);
});
