import { hashOf, TEST_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { askForwardAuth, forwardedFor, loginCookie } from '../../support/http';
import { runCli } from '../../support/process';
import { startGateway, type RunningGateway } from '../../support/server';

const APP = 'https://app.example.test/';
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

/**
 * `portcullis sessions list|revoke` on the embedded store: the gateway stopped (it holds the file's
 * lock), the command run against the same DATA_DIR, then the gateway started again refuses what
 * was revoked. (Redis and PostgreSQL, where running gateways learn at once: test/redis.)
 */
describe('portcullis sessions on the embedded store', () => {
  const data = tempDataDir();
  const users = `alice:${hashOf('alice-pw')},bob:${hashOf('bob-pw')}`;
  const env = { APP_URL: 'https://auth.example.test', SECRET: TEST_SECRET, USERS: users, DATA_DIR: data.dir };
  const start = (): Promise<RunningGateway> => startGateway({ USERS: users, DATA_DIR: data.dir });
  const live = async (gw: RunningGateway, cookie: string): Promise<boolean> =>
    (await askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor(APP) })).status === 200;
  afterAll(() => data.remove());

  it('lists an account’s sessions, revokes one and then all, and a restarted gateway refuses them', async () => {
    let gw = await start();
    const laptop = await loginCookie(gw, 'alice', 'alice-pw', { 'user-agent': CHROME });
    const phone = await loginCookie(gw, 'alice', 'alice-pw');
    const bobs = await loginCookie(gw, 'bob', 'bob-pw');
    await gw.close();

    const listed = await runCli(['sessions', 'list', 'alice'], { env });
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    const chromeLine = lines.find((l) => l.includes('Chrome 130 on Linux'));
    expect(chromeLine).toMatch(/127\.0\.0\.1 {2}via password {2}started \d{4}-/);
    const laptopId = String(chromeLine?.split(' ')[0]);

    expect(await runCli(['sessions', 'revoke', 'alice', 'no-such-id'], { env })).toMatchObject({ code: 1 });
    const one = await runCli(['sessions', 'revoke', 'alice', laptopId], { env });
    expect(one).toMatchObject({ code: 0, stdout: 'revoked 1 session of alice\n' });

    gw = await start();
    expect([await live(gw, laptop), await live(gw, phone), await live(gw, bobs)]).toEqual([false, true, true]);
    await gw.close();

    expect(await runCli(['sessions', 'revoke', 'alice', '--all'], { env })).toMatchObject({ code: 0, stdout: 'revoked 1 session of alice\n' });
    expect((await runCli(['sessions', 'list', 'alice'], { env })).stdout).toBe('alice has no live session\n');
    gw = await start();
    expect([await live(gw, phone), await live(gw, bobs)]).toEqual([false, true]);
    await gw.close();
  }, 60_000);

  it('says why when a running gateway holds the file, and checks its arguments', async () => {
    const gw = await start();
    try {
      const busy = await runCli(['sessions', 'list', 'alice'], { env });
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain('in use by another Portcullis process');
      expect(busy.stderr).toContain('Stop the gateway first, or use the account page ("Sign out everywhere")');
    } finally {
      await gw.close();
    }
    expect((await runCli(['sessions', 'revoke', 'alice'], { env })).code).toBe(2);
    expect((await runCli(['sessions', 'revoke', 'alice', 'id', '--all'], { env })).code).toBe(2);
    expect((await runCli(['sessions', 'frobnicate'], { env })).code).toBe(2);
    expect((await runCli(['sessions', '--help'], { env })).stdout).toContain('portcullis sessions list <name>');
  }, 60_000);
});
