import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashOf, TEST_SECRET } from '../../support/credentials';
import { tempDataDir } from '../../support/data-dir';
import { accepts, freePort } from '../../support/net';
import { gatewayMain, ROOT, startChild, type Child } from '../../support/process';
import { eventually } from '../../support/wait';

/** Every live process whose parent chain leads to `root` (Linux /proc), not `root` itself. */
function descendantsOf(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name is in parentheses and may hold spaces: the fields after its closing one are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(after[1]));
    } catch {
      // Gone between the listing and the read.
    }
  }
  const found: number[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const next = [...parents].filter(([, ppid]) => frontier.includes(ppid)).map(([pid]) => pid);
    found.push(...next);
    frontier = next;
  }
  return found;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start (the README run command)', () => {
  let npm: Child | null = null;
  let orphans: number[] = [];
  afterEach(() => {
    // Whatever npm started, found before npm goes (its orphans would be re-parented and lost to view).
    if (npm?.process.pid !== undefined) orphans.push(...descendantsOf(npm.process.pid));
    npm?.kill();
    for (const pid of orphans) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('starts the built gateway without rebuilding, and SIGTERM sent to npm stops the gateway and closes its port', async () => {
    gatewayMain(); // built by pretest: `npm start` must not need to build again
    const port = await freePort();
    const data = tempDataDir();
    try {
      npm = startChild('npm start', 'npm', ['start', '--silent'], {
        env: {
          HOME: process.env.HOME ?? '/',
          APP_URL: 'http://localhost',
          SECRET: TEST_SECRET,
          USERS: `alice:${hashOf('pw')}`,
          ADDRESS: '127.0.0.1',
          PORT: String(port),
          DATA_DIR: data.dir,
        },
      });
      const npmPid = npm.process.pid ?? 0;
      const started = Date.now();
      await npm.waitForLine('portcullis listening', 30_000);
      // The built gateway starts in well under a second; a rebuild (tsc + the UI bundle) takes several.
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await accepts(port)).toBe(true);
      orphans = descendantsOf(npmPid);
      expect(orphans.length).toBeGreaterThan(0);

      // A supervisor (systemd, docker, a terminal's kill) signals the process it started: npm.
      process.kill(npmPid, 'SIGTERM');
      await npm.exited;
      // Every process npm started is gone, the gateway among them, and nothing listens any more.
      await eventually(() => orphans.every((pid) => !alive(pid)));
      expect(orphans.filter(alive)).toEqual([]);
      expect(await accepts(port)).toBe(false);
      // The gateway shut down gracefully (its own SIGTERM handler), not killed.
      expect(npm.stdout + npm.stderr).toContain('shutting down');
    } finally {
      data.remove();
    }
  }, 60_000);

  it('`npx portcullis --help` runs the package bin from the checkout (what an operator types right after npm ci)', async () => {
    gatewayMain();
    const npx = startChild('npx portcullis', 'npx', ['--no-install', 'portcullis', '--help'], { env: { HOME: process.env.HOME ?? '/' } });
    expect(await npx.exited).toBe(0);
    await npx.closed;
    expect(npx.stdout).toMatch(/^Usage: portcullis \[command\]/m);
    expect(npx.stdout).toContain('user add <name>');
    // The first npx run in a fresh npm cache links the checkout into that cache: seconds on a busy machine.
  }, 60_000);

  it('without a build, the command says how to build in one line and exits 1 (no module-not-found stack)', async () => {
    // The launcher alone, where no dist/ sits beside it: a checkout whose install skipped the build.
    const bare = tempDataDir('portcullis-unbuilt');
    try {
      mkdirSync(join(bare.dir, 'bin'));
      copyFileSync(join(ROOT, 'bin', 'portcullis.js'), join(bare.dir, 'bin', 'portcullis.js'));
      const child = startChild('unbuilt portcullis', process.execPath, [join(bare.dir, 'bin', 'portcullis.js'), '--help'], { cwd: bare.dir });
      expect(await child.exited).toBe(1);
      await child.closed;
      expect(child.stdout).toBe('');
      expect(child.stderr).toBe(
        'portcullis: not built: dist/src/main.js is missing. Run "npm run build" (npm ci and npm install do it when the dev dependencies are installed).\n',
      );
    } finally {
      bare.remove();
    }
  });

  it('the install-time build (prepare) steps aside, saying why, where it cannot build: no sources yet (the Dockerfile), no dev dependencies (--omit=dev)', async () => {
    const dir = tempDataDir('portcullis-prepare');
    try {
      mkdirSync(join(dir.dir, 'scripts'));
      copyFileSync(join(ROOT, 'scripts', 'prepare.js'), join(dir.dir, 'scripts', 'prepare.js'));
      const run = async (): Promise<Child> => {
        const child = startChild('prepare', process.execPath, [join(dir.dir, 'scripts', 'prepare.js')], { cwd: dir.dir });
        expect(await child.exited).toBe(0);
        await child.closed;
        return child;
      };
      expect((await run()).stdout).toContain('no sources here yet, not building');
      mkdirSync(join(dir.dir, 'src'));
      copyFileSync(join(ROOT, 'src', 'main.ts'), join(dir.dir, 'src', 'main.ts'));
      // No node_modules beside it: what npm ci --omit=dev leaves (TypeScript and esbuild are dev dependencies).
      expect((await run()).stdout).toContain('dev dependencies not installed, not building');
    } finally {
      dir.remove();
    }
  });
});
