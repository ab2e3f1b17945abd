import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** WCAG 2 relative luminance and contrast ratio of two #rrggbb colours. */
function luminance(hex: string): number {
  const channels = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r, g, b] = channels.map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The custom properties of the first `:root` block after `marker` (the light scheme, or the dark one). */
function palette(css: string, marker: string): Record<string, string> {
  const start = css.indexOf(marker);
  const block = css.slice(css.indexOf(':root', start), css.indexOf('}', css.indexOf(':root', start)));
  return Object.fromEntries([...block.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6})/gi)].map((m) => [m[1], m[2]]));
}

const css = readFileSync(join(__dirname, '..', '..', '..', 'ui', 'app.css'), 'utf8');

// Text colour on background colour, as the stylesheet pairs them.
const PAIRS: [string, string][] = [
  ['fg', 'card'],
  ['fg', 'bg'],
  ['muted', 'card'],
  ['muted', 'bg'],
  ['accent', 'card'],
  ['on-accent', 'accent'],
  ['on-accent', 'accent-hover'],
  ['fg', 'secondary-bg'],
  ['err', 'err-bg'],
  ['err', 'card'],
  ['warn', 'warn-bg'],
];

describe.each([
  ['light', ':root'],
  ['dark', 'prefers-color-scheme: dark'],
])('the %s colour scheme', (_name, marker) => {
  const colours = palette(css, marker);

  test.each(PAIRS)('%s text on %s meets WCAG AA (4.5:1)', (fg, bg) => {
    expect(colours[fg]).toBeDefined();
    expect(colours[bg]).toBeDefined();
    expect(contrast(colours[fg], colours[bg])).toBeGreaterThanOrEqual(4.5);
  });

  test('input borders and focus rings stand out from the card (3:1, WCAG non-text contrast)', () => {
    expect(contrast(colours.border, colours.card)).toBeGreaterThanOrEqual(3);
    expect(contrast(colours.focus, colours.card)).toBeGreaterThanOrEqual(3);
  });
});
