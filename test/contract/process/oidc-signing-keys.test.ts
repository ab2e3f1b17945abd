import { TEST_SECRET, usersEntry } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { freePort } from '../../support/net';
import { startGatewayProcess } from '../../support/process';

/** The gateway process when the stored OpenID Connect key set was sealed under another SECRET. */
describe('a signing key set stored under another SECRET', () => {
  const data = tempDataDir();
  afterAll(() => data.remove());

  it('stops the start with exit code 2 and one line saying what to do, no stack trace, no crash loop', async () => {
    const port = await freePort();
    const env = {
      APP_URL: 'https://auth.example.test',
      USERS: usersEntry('alice', 'alice-pw'),
      PORT: String(port),
      ADDRESS: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATA_DIR: data.dir,
      OIDC_CLIENTS_APP_CLIENT_ID: 'app',
      OIDC_CLIENTS_APP_CLIENT_SECRET: 'app-secret-0123456789-0123456789-abcdef',
      OIDC_CLIENTS_APP_REDIRECT_URIS: 'https://rp.example.test/callback',
    };
    const first = startGatewayProcess({ ...env, SECRET: TEST_SECRET });
    await first.waitForLine('portcullis listening');
    first.kill();
    await first.exited;

    const second = startGatewayProcess({ ...env, SECRET: `another-${TEST_SECRET}` });
    expect(await second.exited).toBe(2);
    expect(second.stderr).toMatch(/^Portcullis cannot start; fix the database:\n {2}- .+\n$/);
    expect(second.stderr).toContain('signing key set in the state store cannot be decrypted with this SECRET');
    expect(second.stderr).not.toMatch(/\n\s+at /);
    expect(second.stderr).not.toContain(TEST_SECRET);
    expect(second.stdout).not.toContain('portcullis listening');
  }, 30_000);

  it("writes nothing but JSON log lines, the OpenID Connect library's own notices included", async () => {
    const port = await freePort();
    const gw = startGatewayProcess({
      APP_URL: 'https://auth.example.test',
      USERS: usersEntry('alice', 'alice-pw'),
      SECRET: TEST_SECRET,
      PORT: String(port),
      ADDRESS: '127.0.0.1',
      LOG_LEVEL: 'info',
      OIDC_CLIENTS_APP_CLIENT_ID: 'app',
      OIDC_CLIENTS_APP_CLIENT_SECRET: 'app-secret-0123456789-0123456789-abcdef',
      OIDC_CLIENTS_APP_REDIRECT_URIS: 'https://rp.example.test/callback',
    });
    try {
      await gw.waitForLine('portcullis listening');
      // The library loads with the first OpenID Connect request.
      expect((await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)).status).toBe(200);
    } finally {
      gw.kill();
      await gw.exited;
    }
    const lines = `${gw.stdout}${gw.stderr}`.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    // Where the library has something to say (an unsupported runtime), it is a warning line of ours.
    const notices = lines.map((l) => JSON.parse(l) as { msg?: string; notice?: string }).filter((l) => l.msg === 'the OpenID Connect library says');
    if (!process.release.lts || process.release.lts < 'Jod')
      expect(notices).toEqual([expect.objectContaining({ notice: expect.stringContaining('Unsupported runtime') })]);
  }, 30_000);
});
