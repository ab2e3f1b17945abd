import fs, { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadConfig } from '../../../src/composition/config';
import type { Config } from '../../../src/config/load';
import { createGateway } from '../../../src/composition/gateway';
import { hashOf } from '../../support/credentials';

function config(env: Record<string, string>): Config {
  const loaded = loadConfig({ env: { APP_URL: 'https://auth.example.test', SECRET: 'x'.repeat(40), LOG_LEVEL: 'silent', ...env } });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  return loaded.config;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(20);
  }
}

describe('building the gateway starts nothing; gateway.start() does', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-nofx-'));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens no Redis connection until start()', async () => {
    // A listener that only counts connections (it never answers, so the client never becomes ready).
    const sockets: Socket[] = [];
    const server: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const gateway = createGateway(config({ USERS: `alice:${hashOf('pw')}`, REDIS_URL: `redis://127.0.0.1:${port}` }));
      await sleep(300);
      expect(sockets).toHaveLength(0);
      void gateway.start();
      await waitFor(() => sockets.length > 0);
      expect(sockets.length).toBeGreaterThan(0);
      await gateway.close();
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('creates no database file in DATA_DIR until start()', async () => {
    const dataDir = join(dir, 'data');
    const gateway = createGateway(config({ USERS: `alice:${hashOf('pw')}`, DATA_DIR: dataDir }));
    expect(existsSync(dataDir)).toBe(false);
    expect(existsSync(join(dataDir, 'portcullis.db'))).toBe(false);
    await gateway.start();
    expect(existsSync(join(dataDir, 'portcullis.db'))).toBe(true);
    await gateway.close();
  });

  it('a bad database fails start(), not createGateway()', async () => {
    writeFileSync(join(dir, 'portcullis.db'), 'not a database at all, just text that is long enough');
    const gateway = createGateway(config({ USERS: `alice:${hashOf('pw')}`, DATA_DIR: dir }));
    await expect(gateway.start()).rejects.toMatchObject({ name: 'DatabaseStartError' });
    await gateway.close();
  });

  it('watches the users file only from start()', async () => {
    const usersFile = join(dir, 'users.txt');
    writeFileSync(usersFile, `alice:${hashOf('pw')}\n`);
    const watch = jest.spyOn(fs, 'watch');
    const setInterval = jest.spyOn(global, 'setInterval');
    const gateway = createGateway(config({ USERS_FILE: usersFile }));
    expect(watch).not.toHaveBeenCalled();
    expect(setInterval).not.toHaveBeenCalled();
    await gateway.start();
    expect(watch).toHaveBeenCalledWith(dirname(usersFile), expect.anything(), expect.any(Function));
    expect(setInterval).toHaveBeenCalled();
    await gateway.close();
  });
});
