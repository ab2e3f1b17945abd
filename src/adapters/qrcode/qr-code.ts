/** The qrcode package, handed in by composition, which loads it only for `totp enroll` (ADR 0015). */
export type QrCodeModule = typeof import('qrcode');

/** Modules of light margin a QR code needs around it to be found (ISO/IEC 18004's quiet zone). */
const QUIET_ZONE = 4;
// Colours 16 (black) and 231 (white) of the 256-colour palette: the 6×6×6 cube, which themes leave
// alone, unlike the 16 basic colours (a light theme's "white" may be grey, a dark theme's "black" grey).
const BLACK_ON_WHITE = '\x1b[38;5;16;48;5;231m';
const RESET = '\x1b[0m';

/**
 * The QR code of `text` for a terminal, two modules a character (`▀ ▄ █` and space). Every line
 * sets both its colours, black on white, and the quiet zone is drawn in them too: without explicit
 * colours the code took the terminal's own, and a light theme showed it inverted (it decoded on
 * dark terminals only).
 */
export function terminalQr(qrcode: QrCodeModule, text: string): string {
  const { modules } = qrcode.create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  const dark = (row: number, col: number): boolean => row >= 0 && row < size && col >= 0 && col < size && Boolean(modules.get(row, col));
  const lines: string[] = [];
  for (let row = -QUIET_ZONE; row < size + QUIET_ZONE; row += 2) {
    let line = '';
    for (let col = -QUIET_ZONE; col < size + QUIET_ZONE; col += 1) {
      const top = dark(row, col);
      const bottom = row + 1 < size + QUIET_ZONE && dark(row + 1, col);
      line += top ? (bottom ? '█' : '▀') : bottom ? '▄' : ' ';
    }
    lines.push(`${BLACK_ON_WHITE}${line}${RESET}`);
  }
  return lines.join('\n');
}

/** The QR code of `text` as a PNG: black on white, 8 pixels a module, the quiet zone included. */
export function pngQr(qrcode: QrCodeModule, text: string): Promise<Buffer> {
  return qrcode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: QUIET_ZONE, scale: 8, color: { dark: '#000000ff', light: '#ffffffff' } });
}
