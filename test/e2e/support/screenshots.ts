import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import type { ProxyName, Site, Stack } from './stack';

/**
 * Where a suite writes its screenshots: SCREENSHOT_DIR when set (`npm run screenshots` sets it to
 * docs/screenshots, the README's pictures), else a folder in the stack's throwaway directory, so a
 * plain test run still takes them (a page that cannot be drawn fails) without touching the docs.
 */
export function screenshotDir(stack: Stack): string {
  const dir = process.env.SCREENSHOT_DIR !== undefined ? resolve(process.env.SCREENSHOT_DIR) : join(stack.dir, 'screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The site behind `proxy`: a suite that asked for it at start fails loudly when it is missing. */
export function siteBehind(stack: Stack, proxy: ProxyName): Site {
  const site = stack.sites[proxy];
  if (site === undefined) throw new Error(`${proxy} is not running`);
  return site;
}

/**
 * A screenshot of the page's card (and its footnote) with a margin around it: small files that stay
 * the same whatever the window's size. The mouse leaves the page first (no hover state in the shot).
 */
export async function cardScreenshot(page: Page, path: string): Promise<void> {
  await page.mouse.move(0, 0);
  const box = await page.locator('.shell').evaluate((el) => {
    const card = el.querySelector('.card')?.getBoundingClientRect();
    const note = el.querySelector('.footnote')?.getBoundingClientRect();
    return card && note ? { x: card.left, y: card.top, right: card.right, bottom: note.bottom } : null;
  });
  if (box === null) throw new Error('no card on the page');
  const margin = 32;
  await page.screenshot({
    path,
    animations: 'disabled',
    caret: 'hide',
    clip: { x: box.x - margin, y: box.y - margin, width: box.right - box.x + 2 * margin, height: box.bottom - box.y + 2 * margin },
    fullPage: true,
  });
}
