import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

/** ESC, kept out of regular expression literals (ESLint's no-control-regex). */
export const ESC = String.fromCharCode(27);
const SGR = new RegExp(`^${ESC}\\[([0-9;]*)m`);

/** A terminal's colours: its default foreground and background, as grey levels (0 black, 255 white). */
export interface Palette {
  readonly name: string;
  readonly foreground: number;
  readonly background: number;
}

// Grey levels close to common themes: black on white, and light grey on near-black.
export const LIGHT_TERMINAL: Palette = { name: 'light', foreground: 0x10, background: 0xff };
export const DARK_TERMINAL: Palette = { name: 'dark', foreground: 0xd0, background: 0x1e };

/** The 256-colour palette's greys as a terminal shows them (the 6×6×6 cube and the grey ramp); the 16 themed colours as black or white. */
function color256(index: number, palette: Palette, role: 'fg' | 'bg'): number {
  if (index >= 16 && index <= 231) {
    const c = index - 16;
    const level = (v: number): number => (v === 0 ? 0 : 55 + v * 40);
    // Luma of the cube colour; the QR only needs black and white.
    return Math.round(0.299 * level(Math.floor(c / 36)) + 0.587 * level(Math.floor(c / 6) % 6) + 0.114 * level(c % 6));
  }
  if (index >= 232) return 8 + (index - 232) * 10;
  // Themed colours (0–15) follow the theme: no better than the defaults for a fixed answer.
  if (index === 0 || index === 8) return palette.background < 128 ? palette.background : 0;
  if (index === 7 || index === 15) return palette.foreground > 128 ? palette.foreground : 0xff;
  return role === 'fg' ? palette.foreground : palette.background;
}

/**
 * Paints what a terminal would show for `text` (SGR colours: default, 30–37/40–47, 38;5;n/48;5;n,
 * 38;2;r;g;b/48;2;r;g;b, reset) as a grey-level image: each character cell `cell` pixels wide and
 * twice as high, block characters (`█ ▀ ▄`) in the foreground, everything else in the background,
 * and a margin of the terminal's own background around it.
 */
export function renderTerminal(text: string, palette: Palette, cell = 6, margin = 4): { width: number; height: number; pixels: Uint8Array } {
  const lines = text.replace(/\n$/, '').split('\n');
  type Cell = { ch: string; fg: number; bg: number };
  const grid: Cell[][] = [];
  for (const line of lines) {
    let fg = palette.foreground;
    let bg = palette.background;
    const row: Cell[] = [];
    for (let i = 0; i < line.length;) {
      const sgr = SGR.exec(line.slice(i));
      if (sgr !== null) {
        const codes = sgr[1] === '' ? [0] : sgr[1].split(';').map(Number);
        for (let k = 0; k < codes.length; k += 1) {
          const code = codes[k];
          if (code === 0) [fg, bg] = [palette.foreground, palette.background];
          else if (code === 39) fg = palette.foreground;
          else if (code === 49) bg = palette.background;
          else if (code >= 30 && code <= 37) fg = color256(code - 30, palette, 'fg');
          else if (code >= 40 && code <= 47) bg = color256(code - 40, palette, 'bg');
          else if ((code === 38 || code === 48) && codes[k + 1] === 5) {
            const v = color256(codes[k + 2], palette, code === 38 ? 'fg' : 'bg');
            if (code === 38) fg = v;
            else bg = v;
            k += 2;
          } else if ((code === 38 || code === 48) && codes[k + 1] === 2) {
            const v = Math.round(0.299 * codes[k + 2] + 0.587 * codes[k + 3] + 0.114 * codes[k + 4]);
            if (code === 38) fg = v;
            else bg = v;
            k += 4;
          }
        }
        i += sgr[0].length;
        continue;
      }
      const ch = String.fromCodePoint(line.codePointAt(i) as number);
      row.push({ ch, fg, bg });
      i += ch.length;
    }
    grid.push(row);
  }
  const columns = Math.max(...grid.map((r) => r.length));
  const width = (columns + 2 * margin) * cell;
  const height = (grid.length + 2 * margin) * cell * 2;
  const pixels = new Uint8Array(width * height).fill(palette.background);
  grid.forEach((row, y) =>
    row.forEach(({ ch, fg, bg }, x) => {
      const top = ch === '█' || ch === '▀' ? fg : bg;
      const bottom = ch === '█' || ch === '▄' ? fg : bg;
      for (let dy = 0; dy < cell * 2; dy += 1) {
        const value = dy < cell ? top : bottom;
        const offset = ((y + margin) * cell * 2 + dy) * width + (x + margin) * cell;
        pixels.fill(value, offset, offset + cell);
      }
    }),
  );
  return { width, height, pixels };
}

/** Writes a binary PGM (netpbm), which zbarimg reads. */
export function writePgm(path: string, image: { width: number; height: number; pixels: Uint8Array }): void {
  writeFileSync(path, Buffer.concat([Buffer.from(`P5\n${image.width} ${image.height}\n255\n`), Buffer.from(image.pixels)]));
}

/** What zbarimg (Debian's zbar-tools) decodes from an image file: the QR's text, or null when it finds none. */
export function decodeQr(path: string): string | null {
  try {
    return execFileSync('zbarimg', ['--quiet', '--raw', '-Sdisable', '-Sqrcode.enable', path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).replace(
      /\n$/,
      '',
    );
  } catch {
    // Exit code 4: no symbol found.
    return null;
  }
}
