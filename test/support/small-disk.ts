import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A directory whose disk can be made full and then freed again, for the disk-full tests.
 * A small tmpfs when this process may mount one (root); otherwise a file-size limit on the
 * gateway process (RLIMIT_FSIZE through `ulimit -f`, lifted again with `prlimit`), which makes
 * its writes past the limit fail as a full disk would.
 */
export interface SmallDisk {
  readonly dir: string;
  readonly kind: 'tmpfs' | 'file-size limit';
  /** Wraps the gateway's command line (the file-size limit needs a shell around node). */
  wrap(argv: string[]): [string, string[]];
  /** Makes further writes fail. `pid` is the gateway's. */
  fill(pid: number): void;
  /** Makes room again. */
  free(pid: number): void;
  remove(): void;
}

export function smallDisk(): SmallDisk {
  const base = mkdtempSync(join(tmpdir(), 'portcullis-disk-'));
  const dir = join(base, 'data');
  try {
    // SMALL_DISK=limit tries the fallback on a machine that could mount.
    if (process.env.SMALL_DISK === 'limit') throw new Error('tmpfs not wanted');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', base], { stdio: 'ignore' });
    const filler = join(base, 'filler');
    return {
      dir,
      kind: 'tmpfs',
      wrap: (argv) => [argv[0], argv.slice(1)],
      fill: () => {
        // Fill every free block: dd stops with "no space left", which is the point.
        try {
          execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' });
        } catch {
          // ENOSPC expected
        }
      },
      free: () => rmSync(filler, { force: true }),
      remove: () => {
        try {
          execFileSync('umount', [base], { stdio: 'ignore' });
        } finally {
          rmSync(base, { recursive: true, force: true });
        }
      },
    };
  } catch {
    // No mount allowed: limit the size of any file the gateway writes instead.
    const limitKb = 256;
    return {
      dir,
      kind: 'file-size limit',
      wrap: (argv) => ['bash', ['-c', `ulimit -S -f ${limitKb}; exec "$0" "$@"`, ...argv]],
      fill: (pid) => {
        // Lower the soft limit (the hard one stays unlimited, so it can be lifted again): the next write fails with EFBIG.
        execFileSync('prlimit', [`--pid=${pid}`, '--fsize=1:unlimited']);
      },
      free: (pid) => {
        execFileSync('prlimit', [`--pid=${pid}`, '--fsize=unlimited:unlimited']);
      },
      remove: () => rmSync(base, { recursive: true, force: true }),
    };
  }
}

/** Writes `text` where a test wants a file that is not a database. */
export function writeGarbage(path: string): void {
  writeFileSync(path, 'not a database '.repeat(400), { mode: 0o600 });
}
