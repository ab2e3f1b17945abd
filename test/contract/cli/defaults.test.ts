import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { hashOf, TEST_SECRET } from '../../support/credentials';
import { freePort } from '../../support/net';
import { runCli as cli, startGatewayProcess } from '../../support/process';

const ENTRY = `alice:${hashOf('s3cret pw')}`;

jest.setTimeout(60_000);

describe('defaults and messages of the built executable', () => {
  it('config check shows the cookie domain from the public-suffix list: mydomain.co.uk, not co.uk', async () => {
    const run = await cli(['config', 'check'], { env: { APP_URL: 'https://mydomain.co.uk', SECRET: TEST_SECRET, USERS: ENTRY } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('session cookie: Domain=mydomain.co.uk (mydomain.co.uk and every host under it)');
    const local = await cli(['config', 'check'], { env: { APP_URL: 'http://localhost:3000', SECRET: TEST_SECRET, USERS: ENTRY } });
    expect(local.stdout).toContain('session cookie: host-only (localhost alone: no Domain attribute)');
  });

  it('logs the cookie domain when it starts', async () => {
    const gw = startGatewayProcess({
      APP_URL: 'https://auth.me.github.io',
      USERS: ENTRY,
      PORT: String(await freePort()),
      ADDRESS: '127.0.0.1',
    });
    try {
      await gw.waitForLine('portcullis listening');
      const line = gw.stdout.split('\n').find((l) => l.includes('portcullis listening')) ?? '';
      expect(JSON.parse(line)).toMatchObject({ cookieDomain: 'Domain=me.github.io (me.github.io and every host under it)' });
    } finally {
      gw.kill();
      await gw.exited;
    }
  });

  it('says "add https://" for an APP_URL without a scheme, and refuses a comma list whose URLs share a cookie domain', async () => {
    const bare = await cli(['config', 'check'], { env: { APP_URL: 'auth.example.com', SECRET: TEST_SECRET, USERS: ENTRY } });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('APP_URL needs a scheme: add https:// in front (APP_URL=https://auth.example.com)');
    const list = await cli(['config', 'check'], { env: { APP_URL: 'http://auth.example.com,http://login.example.com', SECRET: TEST_SECRET, USERS: ENTRY } });
    expect(list.code).toBe(1);
    expect(list.stderr).toContain('APP_URL entries 1 and 2 share the cookie domain example.com');
    expect(list.stderr).not.toContain('example.com,http');
    // Issue 17: a list on separate root domains is fine, and config check names each cookie domain.
    const two = await cli(['config', 'check'], { env: { APP_URL: 'https://auth.example.com,https://auth.example.org', SECRET: TEST_SECRET, USERS: ENTRY } });
    expect(two.code).toBe(0);
    expect(two.stdout).toContain('APP_URL https://auth.example.org (hand-off from https://auth.example.com): session cookie Domain=example.org');
  });

  it('reports an unreadable SECRET_FILE once, when starting and in config check', async () => {
    const env = { APP_URL: 'https://auth.example.com', SECRET_FILE: '/nonexistent/portcullis-secret', USERS: ENTRY };
    for (const args of [[], ['config', 'check']]) {
      const run = await cli(args, { env });
      expect(run.code).not.toBe(0);
      expect(run.stderr.match(/SECRET/g)).toHaveLength(1);
      expect(run.stderr).toContain('SECRET_FILE: cannot read /nonexistent/portcullis-secret: no such file');
    }
  });

  it('says why a *_FILE cannot be read: a directory, or a file the running user may not read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-unreadable-'));
    try {
      const asDir = await cli(['config', 'check'], { env: { APP_URL: 'https://auth.example.com', SECRET_FILE: dir, USERS: ENTRY } });
      expect(asDir.stderr).toContain(`SECRET_FILE: cannot read ${dir}: it is a directory, not a file`);
      const locked = join(dir, 'secret');
      writeFileSync(locked, TEST_SECRET, { mode: 0o000 });
      const denied = await cli(['config', 'check'], { env: { APP_URL: 'https://auth.example.com', SECRET_FILE: locked, USERS: ENTRY } });
      // root reads any file: the reason is then not the gateway's to give.
      if (process.getuid?.() !== 0)
        expect(denied.stderr).toContain(`cannot read ${locked}: not permitted for the user the gateway runs as (${userInfo().username}, uid`);
      else expect(denied.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);

  it('names the option whose port is taken, and exits 2 with no stack trace', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const busy = (taken.address() as AddressInfo).port;
    try {
      const base = { APP_URL: 'http://localhost', SECRET: TEST_SECRET, USERS: ENTRY, ADDRESS: '127.0.0.1' };
      const onPort = await cli([], { env: { ...base, PORT: String(busy) } });
      expect(onPort.code).toBe(2);
      expect(onPort.stderr).toContain(`PORT ${busy} (on ADDRESS 127.0.0.1): another program listens there already`);
      expect(onPort.stderr).not.toMatch(/\n\s+at /);
      const onForwardAuth = await cli([], { env: { ...base, PORT: String(await freePort()), FORWARD_AUTH_PORT: String(busy) } });
      expect(onForwardAuth.code).toBe(2);
      expect(onForwardAuth.stderr).toContain(`FORWARD_AUTH_PORT ${busy} (on FORWARD_AUTH_ADDRESS`);
    } finally {
      taken.close();
    }
  });
});
