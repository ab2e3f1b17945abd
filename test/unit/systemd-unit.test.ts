import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * examples/systemd/portcullis.service, checked by systemd itself: `systemd-analyze verify` (Debian's
 * systemd package; on every machine image here) must find nothing to say, and its offline
 * `security` review must rate the exposure low. No systemd runs as PID 1 here, so the unit is not
 * started; what it starts (bin/portcullis.js, SIGTERM handling) is tested by npm-start.test.ts.
 */
const ROOT = join(__dirname, '..', '..');
const UNIT = join(ROOT, 'examples', 'systemd', 'portcullis.service');
const text = readFileSync(UNIT, 'utf8');

/** The values of `key` in the [Service] section, in order. */
function service(key: string): string[] {
  const section = text.slice(text.indexOf('[Service]'), text.indexOf('[Install]'));
  return [...section.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]);
}

function analyze(args: readonly string[]): { status: number | null; output: string } {
  const r = spawnSync('systemd-analyze', [...args], { encoding: 'utf8' });
  if (r.error !== undefined) throw new Error(`systemd-analyze cannot run (${r.error.message}): apt-get install systemd`);
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('the systemd unit (examples/systemd/portcullis.service)', () => {
  it('passes systemd-analyze verify without a single remark', () => {
    expect(analyze(['verify', UNIT])).toEqual({ status: 0, output: '' });
  });

  it('the same check speaks up on a unit with a mistake (so its silence above means something)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-unit-'));
    try {
      const broken = join(dir, 'portcullis.service');
      writeFileSync(broken, text.replace('NoNewPrivileges=yes', 'NoNewPrivilege=yes'));
      expect(analyze(['verify', broken]).output).toMatch(/Unknown key 'NoNewPrivilege'/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is hardened: systemd's own offline security review rates its exposure at most 2 (of 10)", () => {
    const { output } = analyze(['security', '--offline=true', '--no-pager', UNIT]);
    const score = /Overall exposure level for portcullis\.service: ([\d.]+)/.exec(output);
    expect(score).not.toBeNull();
    expect(Number(score?.[1])).toBeLessThanOrEqual(2);
  });

  it('runs the package bin under a user of its own, state in StateDirectory, the secret from LoadCredential, restarted on failure', () => {
    expect(service('ExecStart')).toEqual(['/usr/bin/node /opt/portcullis/bin/portcullis.js']);
    expect(service('DynamicUser')).toEqual(['yes']);
    expect(service('NoNewPrivileges')).toEqual(['yes']);
    expect(service('ProtectSystem')).toEqual(['strict']);
    expect(service('StateDirectory')).toEqual(['portcullis']);
    expect(service('Environment')).toContain('DATA_DIR=%S/portcullis');
    expect(service('LoadCredential')).toEqual(['secret:/etc/portcullis/secret']);
    expect(service('Environment')).toContain('SECRET_FILE=%d/secret');
    expect(service('Restart')).toEqual(['on-failure']);
    // A configuration problem (exit 2, see "Exit codes" in the README) is not retried in a loop.
    expect(service('RestartPreventExitStatus')).toEqual(['2']);
    // Longer than the default SHUTDOWN_TIMEOUT (10 s): a graceful stop is not cut by SIGKILL.
    expect(parseInt(service('TimeoutStopSec')[0], 10)).toBeGreaterThan(10);
    // The secret is never put in the environment itself.
    expect(text).not.toMatch(/^Environment=SECRET=/m);
    expect(readFileSync(join(ROOT, 'examples', 'systemd', 'portcullis.env'), 'utf8')).not.toMatch(/^SECRET=/m);
  });
});
