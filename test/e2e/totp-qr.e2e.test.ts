import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/process';
import { DARK_TERMINAL, ESC, LIGHT_TERMINAL, decodeQr, renderTerminal, writePgm } from './support/terminal-image';

/**
 * `portcullis totp enroll` prints a QR code for an authenticator app. The test paints its output as
 * a terminal with a light and one with a dark theme would show it, and decodes each image with
 * zbarimg (Debian's zbar-tools, installed by scripts/e2e-setup.sh): both must give the otpauth:// URI.
 */
/** A line of the quiet zone alone: colours and spaces. */
const QUIET_LINE = new RegExp(`^(${ESC}\\[[0-9;]*m)+ +(${ESC}\\[0m)?$`);

describe('totp enroll QR code', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-qr-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function enroll(args: string[] = []): Promise<{ uri: string; stdout: string; stderr: string; code: number | null }> {
    const run = await runCli(['totp', 'enroll', 'alice@example.test', '--issuer', 'Example Co', ...args]);
    const uri = /otpauth:\/\/totp\/\S+/.exec(run.stdout)?.[0] ?? '';
    return { uri, ...run };
  }

  function qrPart(stdout: string): string {
    return stdout
      .split('\n')
      .filter((l) => /[█▀▄]/.test(l) || QUIET_LINE.test(l))
      .join('\n');
  }

  for (const palette of [LIGHT_TERMINAL, DARK_TERMINAL]) {
    it(`decodes to the otpauth:// URI on a ${palette.name} terminal`, async () => {
      const { uri, stdout, code } = await enroll();
      expect(code).toBe(0);
      expect(uri).toMatch(/^otpauth:\/\/totp\//);
      const image = join(dir, `${palette.name}.pgm`);
      writePgm(image, renderTerminal(qrPart(stdout), palette));
      expect(decodeQr(image)).toBe(uri);
    });
  }

  // Proves the images above decode because of the colours the code sets, not by luck of the theme.
  // (Before the fix the code took the terminal's colours and decoded on dark terminals only.)
  it('would not decode on one of the two terminals without its explicit colours', async () => {
    const { stdout } = await enroll();
    const stripped = qrPart(stdout).replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '');
    const decoded = [LIGHT_TERMINAL, DARK_TERMINAL].map((palette) => {
      const image = join(dir, `stripped-${palette.name}.pgm`);
      writePgm(image, renderTerminal(stripped, palette));
      return decodeQr(image);
    });
    expect(decoded).toContain(null);
  });

  it('--png writes a PNG that decodes to the URI, readable by its owner only', async () => {
    const file = join(dir, 'alice.png');
    const { uri, stdout, code } = await enroll(['--png', file]);
    expect(code).toBe(0);
    expect(readFileSync(file).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(decodeQr(file)).toBe(uri);
    expect(stdout).toContain(`QR code written to ${file}`);
  });

  it('--png refuses to overwrite a file unless --force, which replaces it with an owner-only one', async () => {
    const file = join(dir, 'existing.png');
    writeFileSync(file, 'keep me', { mode: 0o644 });
    const refused = await enroll(['--png', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${file} exists: give --force to replace it`);
    expect(refused.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toBe('keep me');
    const forced = await enroll(['--png', file, '--force']);
    expect(forced.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(decodeQr(file)).toBe(forced.uri);
  });
});
